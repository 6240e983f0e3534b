package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/howl-mcp/howl/mcp/demo"
)

// startSession runs howl serve-session with args in the background and
// waits until its socket answers; the returned channel gets its exit code.
func startSession(t *testing.T, args ...string) (sock string, done <-chan int, out *syncBuffer) {
	t.Helper()
	return startSessionIn(t, nil, args...)
}

// startSessionIn is startSession with setup run in the isolated home first.
func startSessionIn(t *testing.T, setup func(home string), args ...string) (sock string, done <-chan int, out *syncBuffer) {
	t.Helper()
	home := isolate(t)
	if setup != nil {
		setup(home)
	}
	rtDir := filepath.Join(home, "run")
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

// A verb sent from another directory is refused: in the session it would
// read the session's ./.mcp.json and trust the session's project files.
func TestServeSessionRefusesAVerbSentFromAnotherDirectory(t *testing.T) {
	_, done, _ := startSession(t, "--idle", "10m")
	sock, _ := sessionSocket()
	var out, errOut strings.Builder
	code, err := sessionCall(context.Background(), sock, sessionRequest{Args: []string{"trust"}, Dir: t.TempDir()}, &out, &errOut)
	if err != nil || code != exitUsage || !strings.Contains(errOut.String(), "the session runs in") {
		t.Errorf("howl trust --session from elsewhere: exit %d, %v: %s%s", code, err, out.String(), errOut.String())
	}
	if _, errOut, code := howl(t, "serve-session", "--stop"); code != 0 {
		t.Fatalf("--stop: exit %d: %s", code, errOut)
	}
	waitExit(t, done)
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

// The session's first line names the servers it holds, and apart the
// ones it does not start: a cloned repository's untrusted .mcp.json
// names its servers, and they are not held (nor run).
func TestServeSessionNamesOnlyTheServersItHolds(t *testing.T) {
	var marker string
	_, done, out := startSessionIn(t, func(home string) {
		marker = filepath.Join(home, "PWNED")
		t.Setenv("APPDATA", filepath.Join(home, "config")) // Windows's user config dir
		exe, _ := os.Executable()
		q, _ := json.Marshal(exe)
		user := userConfig(home)
		os.MkdirAll(filepath.Dir(user), 0o700)
		if err := os.WriteFile(user, []byte(`{"mcpServers":{"demo":{"command":`+string(q)+`,"args":["demo-server"]},"spare":{"command":`+string(q)+`,"args":["demo-server"],"disabled":true}}}`), 0o600); err != nil {
			t.Fatal(err)
		}
		project, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"helper": map[string]any{"command": "sh", "args": []string{"-c", "echo PWNED > " + marker}}}})
		if err := os.WriteFile(".mcp.json", project, 0o644); err != nil {
			t.Fatal(err)
		}
	}, "--idle", "10m")
	line := regexp.MustCompile(`(?m)^howl session at .*$`).FindString(out.String())
	for _, want := range []string{"holds demo (disabled, not started: spare) (not started, from an untrusted project file until you run howl trust: helper);"} {
		if !strings.Contains(line, want) {
			t.Errorf("the first line is %q; want it to contain %q; the whole output:\n%s", line, want, out)
		}
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the session ran the untrusted project's command")
	}
	if _, errOut, code := howl(t, "serve-session", "--stop"); code != 0 {
		t.Fatalf("--stop: exit %d: %s", code, errOut)
	}
	waitExit(t, done)
}

// waitCallable waits until the session's server answers a call (its
// watch applies a change within a few looks), failing after 60 s with
// the session's log.
func waitCallable(t *testing.T, server string, log *syncBuffer) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		got, errOut, code := howl(t, "call", "--session", server, demo.EchoTool, "message=hi")
		if code == 0 && strings.Contains(got, "hi") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s was not callable in the session within 60s: exit %d: %s %s\nsession log:\n%s", server, code, got, errOut, log)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// An edit of the config reaches a running session, as it reaches the
// TUI: a server added is started and the next verb uses it, one removed
// is stopped, and the session's log says so.
func TestServeSessionAppliesAnEditOfItsConfig(t *testing.T) {
	var user string
	var q []byte
	write := func(servers string) {
		t.Helper()
		if err := os.WriteFile(user, []byte(`{"mcpServers":{`+servers+`}}`), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	_, done, out := startSessionIn(t, func(home string) {
		t.Setenv("APPDATA", filepath.Join(home, "config")) // Windows's user config dir
		exe, _ := os.Executable()
		q, _ = json.Marshal(exe)
		user = userConfig(home)
		os.MkdirAll(filepath.Dir(user), 0o700)
		write(`"first":{"command":` + string(q) + `,"args":["demo-server"]}`)
	}, "--idle", "10m")
	if _, errOut, code := howl(t, "call", "--session", "second", demo.EchoTool, "message=hi"); code != exitUsage || !strings.Contains(errOut, `no server named "second"`) {
		t.Fatalf("before the edit: exit %d: %s", code, errOut)
	}
	write(`"second":{"command":` + string(q) + `,"args":["demo-server"]}`)
	waitCallable(t, "second", out)
	if _, errOut, code := howl(t, "call", "--session", "first", demo.EchoTool, "message=hi"); code != exitUsage || !strings.Contains(errOut, `no server named "first"`) {
		t.Errorf("the removed server: exit %d: %s", code, errOut)
	}
	for _, want := range []string{"howl session: config reloaded: ", "started second", "stopped first"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the session log does not say %q:\n%s", want, out)
		}
	}
	if _, errOut, code := howl(t, "serve-session", "--stop"); code != 0 {
		t.Fatalf("--stop: exit %d: %s", code, errOut)
	}
	waitExit(t, done)
}

// A project's servers wait in a session until the person trusts the
// project's file, from another terminal: then the session starts them.
func TestServeSessionStartsAProjectsServersOnceTrusted(t *testing.T) {
	_, done, out := startSessionIn(t, func(home string) {
		exe, _ := os.Executable()
		project, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"helper": map[string]any{"command": exe, "args": []string{"demo-server"}}}})
		if err := os.WriteFile(".mcp.json", project, 0o644); err != nil {
			t.Fatal(err)
		}
	}, "--idle", "10m")
	if _, errOut, code := howl(t, "call", "--session", "helper", demo.EchoTool, "message=hi"); code != exitUsage || !strings.Contains(errOut, "you have not trusted") {
		t.Fatalf("before howl trust: exit %d: %s", code, errOut)
	}
	if _, errOut, code := howl(t, "trust"); code != 0 {
		t.Fatalf("howl trust: exit %d: %s", code, errOut)
	}
	waitCallable(t, "helper", out)
	if !strings.Contains(out.String(), "started helper") {
		t.Errorf("the session log does not say it started helper:\n%s", out)
	}
	if _, errOut, code := howl(t, "serve-session", "--stop"); code != 0 {
		t.Fatalf("--stop: exit %d: %s", code, errOut)
	}
	waitExit(t, done)
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

// dialSession opens a raw connection to the session, as any local program could.
func dialSession(t *testing.T, sock string) net.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c, err := sessionDial(ctx, sock)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// readFrame reads the session's first answer on c.
func readFrame(t *testing.T, c net.Conn) sessionFrame {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(60 * time.Second))
	var fr sessionFrame
	if err := json.NewDecoder(c).Decode(&fr); err != nil {
		t.Fatalf("no answer from the session: %v", err)
	}
	return fr
}

// setReadWait sets how long the session waits for a request line.
func setReadWait(t *testing.T, d time.Duration) {
	old := sessionReadWait
	sessionReadWait = d
	t.Cleanup(func() { sessionReadWait = old })
}

// A client sending a 1 GiB line is read no further than
// MaxSessionRequestBytes: it is told the limit and cut off, its writes
// fail long before the gigabyte, and the session goes on serving.
func TestServeSessionCutsOffAGigabyteRequestLine(t *testing.T) {
	sock, done, _ := startSession(t, "--idle", "10m")
	c := dialSession(t, sock)
	defer c.Close()
	wrote := make(chan int64, 1)
	go func() { // ends when a write fails: the session closed its end
		chunk := bytes.Repeat([]byte("a"), 1<<20)
		var n int64
		for n < 1<<30 {
			k, err := c.Write(chunk)
			n += int64(k)
			if err != nil {
				break
			}
		}
		wrote <- n
	}()
	fr := readFrame(t, c)
	if !fr.Done || fr.Code != exitUsage || !strings.Contains(fr.Err, fmt.Sprintf("longer than %d bytes (MaxSessionRequestBytes)", MaxSessionRequestBytes)) {
		t.Errorf("the answer to a 1 GiB line: %+v", fr)
	}
	select {
	case n := <-wrote:
		if n >= 64<<20 {
			t.Errorf("the session took %d bytes of the line before it stopped reading", n)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the client could still write after 60s: the session reads on")
	}
	if out, errOut, code := howl(t, "call", "--session", "demo", "add", "a=1", "b=2"); code != 0 || !strings.Contains(out, "3") {
		t.Errorf("the session after the long line: exit %d: %s %s", code, out, errOut)
	}
	howl(t, "serve-session", "--stop")
	waitExit(t, done)
}

// A client that connects and never sends is told why and dropped after
// sessionReadWait: the session closes its end (its goroutine returns).
func TestServeSessionDropsAClientThatNeverSends(t *testing.T) {
	setReadWait(t, 300*time.Millisecond)
	sock, done, _ := startSession(t, "--idle", "10m")
	c := dialSession(t, sock)
	defer c.Close()
	fr := readFrame(t, c)
	if !fr.Done || fr.Code != exitUsage || !strings.Contains(fr.Err, "no request line within 300ms of connecting (sessionReadWait)") {
		t.Errorf("the answer to a silent client: %+v", fr)
	}
	if _, err := io.ReadAll(c); err != nil && !errors.Is(err, syscall.ECONNRESET) {
		t.Errorf("the session did not close the silent connection: %v", err)
	}
	howl(t, "serve-session", "--stop")
	waitExit(t, done)
}

// 1000 connections at once hold at most MaxSessionConnections of the
// session's goroutines: the rest are told the limit and closed, a verb
// meanwhile too, and once the held ones go the session serves again.
func TestServeSessionBoundsAThousandConcurrentConnections(t *testing.T) {
	const conns = 1000
	setReadWait(t, 5*time.Minute) // the held ones stay held while the test looks
	sock, done, _ := startSession(t, "--idle", "10m")
	base := runtime.NumGoroutine()
	refused := make(chan sessionFrame, conns)
	all := make([]net.Conn, 0, conns)
	closeAll := func() {
		for _, c := range all {
			c.Close()
		}
	}
	defer closeAll()
	for i := 0; i < conns; i++ {
		c := dialSession(t, sock)
		all = append(all, c)
		go func() { // ends when the session answers or closeAll closes c
			var fr sessionFrame
			if json.NewDecoder(c).Decode(&fr) == nil {
				refused <- fr
			}
		}()
	}
	deadline := time.After(2 * time.Minute)
	for n := 0; n < conns-MaxSessionConnections; n++ {
		select {
		case fr := <-refused:
			if fr.Code != exitUsage || !strings.Contains(fr.Err, fmt.Sprintf("at most %d connections at once (MaxSessionConnections)", MaxSessionConnections)) {
				t.Fatalf("a connection past the bound was told: %+v", fr)
			}
		case <-deadline:
			t.Fatalf("only %d of %d connections were refused within 2 minutes: the session holds the rest (%d goroutines, %d before)", n, conns-MaxSessionConnections, runtime.NumGoroutine(), base)
		}
	}
	// Each held connection: the session's handler and this test's reader.
	if g := runtime.NumGoroutine(); g > base+2*MaxSessionConnections+20 {
		t.Errorf("%d goroutines with %d connections open (%d before): not bounded", g, conns, base)
	}
	if _, errOut, code := howl(t, "call", "--session", "demo", "add", "a=1", "b=2"); code != exitUsage || !strings.Contains(errOut, "(MaxSessionConnections) and all are taken") {
		t.Errorf("a verb while every connection is taken: exit %d: %s", code, errOut)
	}
	select {
	case fr := <-refused:
		t.Errorf("more than %d connections were refused: %+v", conns-MaxSessionConnections, fr)
	default:
	}
	closeAll()
	for { // the held ones went: the session serves again
		out, _, code := howl(t, "call", "--session", "demo", "add", "a=1", "b=2")
		if code == 0 && strings.Contains(out, "3") {
			break
		}
		select {
		case <-deadline:
			t.Fatalf("the session did not serve again once the connections closed: exit %d", code)
		default:
		}
		time.Sleep(20 * time.Millisecond)
	}
	howl(t, "serve-session", "--stop")
	waitExit(t, done)
}

// A client that sends a verb and stops reading its answer (a listing of
// 3,600 items, more than a socket holds) does not keep the session from
// ending: --stop closes its connection.
func TestServeSessionStopsWhileAClientStopsReading(t *testing.T) {
	sock, done, _ := startSessionIn(t, func(home string) {
		exe, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"big": map[string]any{"command": exe, "args": []string{"demo-server", "--scale", "3000"}}}})
		if err := os.MkdirAll(filepath.Dir(userConfig(home)), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(userConfig(home), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}, "--idle", "10m")
	c := dialSession(t, sock)
	defer c.Close()
	wd, _ := os.Getwd()
	req, _ := json.Marshal(sessionRequest{Args: []string{"ls", "--server", "big", "--json"}, Dir: wd})
	if _, err := c.Write(append(req, '\n')); err != nil {
		t.Fatal(err)
	}
	readFrame(t, c) // the verb runs; its answer waits for a reader that never comes
	if _, errOut, code := howl(t, "serve-session", "--stop"); code != 0 {
		t.Fatalf("--stop: exit %d: %s", code, errOut)
	}
	waitExit(t, done)
}
