package mcp

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// A server that reads none of howl's answers: once MaxUnreadAnswerBytes of
// them wait, howl stops reading what the server sends (and says so in its
// log) instead of taking in more requests to answer; closing ends it all.
func TestStdioPipeStopsReadingAServerThatReadsNoAnswers(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), fixtureEnv+"=sleeper")
	cmd.WaitDelay = time.Second
	notices := make(chan string, 1)
	p, proc, err := startStdio(cmd, "sleeper", func(s string) {
		select {
		case notices <- s:
		default:
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	answer := []byte(`{"jsonrpc":"2.0","id":"x","result":{"pad":"` + strings.Repeat("x", 1<<20) + `"}}` + "\n")
	for range MaxUnreadAnswerBytes>>20 + 2 {
		if _, err := p.Write(answer); err != nil {
			t.Fatal(err)
		}
	}
	read := make(chan error, 1)
	go func() {
		_, err := p.Read(make([]byte, 1))
		read <- err
	}()
	select {
	case s := <-notices:
		if !strings.Contains(s, "MaxUnreadAnswerBytes") || !strings.Contains(s, "sleeper") {
			t.Errorf("the notice says %q: want the server and MaxUnreadAnswerBytes", s)
		}
	case err := <-read:
		t.Errorf("howl read from a server with over %d bytes of answers unread (%v)", MaxUnreadAnswerBytes, err)
	case <-time.After(30 * time.Second):
		t.Error("no notice that howl stopped reading")
	}
	_ = p.Close()
	proc.Kill()
	_ = cmd.Wait()
	proc.Release()
	p.wait()
	<-read
}

func TestIsAnswerTellsResponsesFromRequests(t *testing.T) {
	for _, c := range []struct {
		msg  string
		want bool
	}{
		{`{"jsonrpc":"2.0","id":1,"result":{}}`, true},
		{`{"jsonrpc":"2.0","id":"a \"method\": b","error":{"code":-32000,"message":"m"}}`, true},
		{`{"jsonrpc":"2.0","id":{"method":"x"},"result":null}`, true},
		{`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"result":1}}`, false},
		{`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{}}`, false},
		{`[1,2]`, false},
		{`not json`, false},
	} {
		if got := isAnswer([]byte(c.msg)); got != c.want {
			t.Errorf("isAnswer(%s) = %v, want %v", c.msg, got, c.want)
		}
	}
}
