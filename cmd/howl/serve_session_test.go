package main

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/howl-mcp/howl/mcp/demo"
)

// startSession runs howl serve-session with args in the background and
// waits until its socket answers; the returned channel gets its exit code.
func startSession(t *testing.T, args ...string) (sock string, done <-chan int, out *syncBuffer) {
	t.Helper()
	rtDir := filepath.Join(isolate(t), "run")
	if err := os.Mkdir(rtDir, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_RUNTIME_DIR", rtDir)
	sock, err := sessionSocket()
	if err != nil {
		t.Fatal(err)
	}
	ch := make(chan int, 1)
	out = &syncBuffer{}
	go func() {
		ch <- run(append([]string{"serve-session"}, args...), strings.NewReader(""), out, out)
	}()
	deadline := time.Now().Add(60 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		c, err := sessionDial(ctx, sock)
		cancel()
		if err == nil {
			c.Close()
			break
		}
		select {
		case code := <-ch:
			t.Fatalf("serve-session ended (exit %d) before it listened: %s", code, out)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve-session did not listen within 60s: %s", out)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return sock, ch, out
}

// waitExit waits for the session to end.
func waitExit(t *testing.T, done <-chan int) int {
	t.Helper()
	select {
	case code := <-done:
		return code
	case <-time.After(60 * time.Second):
		t.Fatal("the session did not end within 60s")
		return -1
	}
}

// A session holds the demo's connection for every --session verb: a note
// one call adds is readable by the next (a fresh demo process would not
// have it), usage errors keep their exit code, and --stop ends it and
// removes the socket (or the pipe).
func TestServeSessionKeepsTheServersConnectedAcrossVerbs(t *testing.T) {
	sock, done, _ := startSession(t, "--idle", "10m")
	out, errOut, code := howl(t, "call", "--session", "demo", demo.AddNoteTool, "title=kept")
	if code != 0 {
		t.Fatalf("call --session: exit %d: %s", code, errOut)
	}
	uri := regexp.MustCompile(`demo://notes/extra-\d+`).FindString(out)
	if uri == "" {
		t.Fatalf("the added note's URI is not in %q", out)
	}
	if out, errOut, code := howl(t, "read", "--session", "demo", uri); code != 0 || !strings.Contains(out, "kept") {
		t.Fatalf("read --session %s: exit %d: %s %s", uri, code, out, errOut)
	}
	if _, _, code := howl(t, "read", "demo", uri); code == 0 {
		t.Errorf("a read without --session found %s: the test proves nothing", uri)
	}
	if _, errOut, code := howl(t, "call", "--session", "nosuch", "add"); code != exitUsage || !strings.Contains(errOut, `no server named "nosuch"`) {
		t.Errorf("an unknown server in the session: exit %d: %s", code, errOut)
	}
	if out, errOut, code := howl(t, "serve-session", "--stop"); code != 0 || !strings.Contains(out, "session stopped") {
		t.Fatalf("--stop: exit %d: %s %s", code, out, errOut)
	}
	if code := waitExit(t, done); code != 0 {
		t.Errorf("the session ended with exit %d", code)
	}
	if _, err := os.Stat(sock); !os.IsNotExist(err) {
		t.Errorf("the socket outlived the session: %v", err)
	}
	if _, errOut, code := howl(t, "call", "--session", "demo", "add", "a=1", "b=2"); code != exitUsage || !strings.Contains(errOut, "start one with howl serve-session") {
		t.Errorf("--session without a session: exit %d: %s", code, errOut)
	}
}

// A session ends on its own after --idle without a request.
func TestServeSessionEndsWhenIdle(t *testing.T) {
	_, done, out := startSession(t, "--idle", "300ms")
	if code := waitExit(t, done); code != 0 || !strings.Contains(out.String(), "session ended") {
		t.Fatalf("the idle session ended with exit %d: %s", code, out)
	}
}

// A server's question in a session waits for howl answer: the running
// verb is told its number and fields, howl answer lists it, an answer
// that does not fit the form is refused (the question still waits), and a
// fitting one reaches the server, whose result the verb prints.
func TestAnswerRepliesToAQuestionParkedInTheSession(t *testing.T) {
	_, done, _ := startSession(t, "--idle", "10m")
	type result struct {
		out, err string
		code     int
	}
	called := make(chan result, 1)
	go func() {
		var out, errb syncBuffer
		code := run([]string{"call", "--session", "demo", demo.BookTableTool}, strings.NewReader(""), &out, &errb)
		called <- result{out.String(), errb.String(), code}
	}()
	deadline := time.Now().Add(60 * time.Second)
	var list string
	for !strings.Contains(list, "demo asks: Book a table") {
		if time.Now().After(deadline) {
			t.Fatalf("no question parked within 60s: %q", list)
		}
		time.Sleep(20 * time.Millisecond)
		list, _, _ = howl(t, "answer")
	}
	if !strings.Contains(list, "howl answer 1 name*=<string> date*=<string, date> party_size*=") {
		t.Errorf("the listing does not say how to answer:\n%s", list)
	}
	if _, errOut, code := howl(t, "answer", "1", "name=Ada", "party_size=x"); code != exitUsage || !strings.Contains(errOut, `party_size: "x" is not an integer`) || !strings.Contains(errOut, "date: required") {
		t.Errorf("an answer that does not fit: exit %d: %s", code, errOut)
	}
	if out, errOut, code := howl(t, "answer", "1", "name=Ada", "date=2026-12-24", "seating=terrace"); code != 0 || !strings.Contains(out, "question 1 (demo): accept sent") {
		t.Fatalf("answer: exit %d: %s %s", code, out, errOut)
	}
	r := <-called
	if r.code != 0 || !strings.Contains(r.out, "a table for 2 on 2026-12-24 for Ada, seating terrace") {
		t.Errorf("the call: exit %d: %s %s", r.code, r.out, r.err)
	}
	if !strings.Contains(r.err, "demo asks (question 1)") {
		t.Errorf("the waiting verb was not told the question: %s", r.err)
	}
	if _, errOut, code := howl(t, "answer", "1", "--decline"); code != exitUsage || !strings.Contains(errOut, "no question 1 waits") {
		t.Errorf("answering twice: exit %d: %s", code, errOut)
	}
	howl(t, "serve-session", "--stop")
	waitExit(t, done)
}
