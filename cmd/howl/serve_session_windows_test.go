//go:build windows

package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/windows"
)

// On Windows the session is a named pipe whose owner and only ACL entry
// are the user (no inherited entries), and a client checks the owner.
func TestServeSessionPipeIsTheOwnersAlone(t *testing.T) {
	sock, done, _ := startSession(t, "--idle", "10m")
	if !strings.HasPrefix(sock, `\\.\pipe\howl-session-`) {
		t.Fatalf("the session listens at %s, not a named pipe", sock)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := sessionDial(ctx, sock)
	if err != nil {
		t.Fatal(err)
	}
	sd, err := windows.GetSecurityInfo(windows.Handle(c.(*pipeConn).Fd()), windows.SE_KERNEL_OBJECT, windows.OWNER_SECURITY_INFORMATION|windows.DACL_SECURITY_INFORMATION)
	c.Close()
	if err != nil {
		t.Fatal(err)
	}
	sid, _ := userSID()
	// Windows shows the generic right mapped to the file's (FA); Wine as given (GA).
	if got, want := strings.Replace(sd.String(), ";;GA;;", ";;FA;;", 1), "O:"+sid.String()+"D:P(A;;FA;;;"+sid.String()+")"; got != want {
		t.Errorf("the pipe's security descriptor is %s, want %s (owner and sole entry: you)", got, want)
	}
	howl(t, "serve-session", "--stop")
	waitExit(t, done)
}

// A client that connects and leaves before the listener waits for it
// (serve-session's probe for a running session does) leaves the pipe
// instance to be disconnected; Accept does that and takes the next
// client, rather than failing, which ended the whole session.
func TestServeSessionPipeTakesTheNextClientAfterOneThatLeft(t *testing.T) {
	isolate(t)
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	path, err := sessionSocket()
	if err != nil {
		t.Fatal(err)
	}
	ln, err := sessionListen(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	early, err := sessionDial(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	early.Close() // gone before Accept
	accepted := make(chan error, 1)
	go func() {
		c, err := ln.Accept()
		if err == nil {
			c.Close()
		}
		accepted <- err
	}()
	late, err := sessionDial(ctx, path)
	if err == nil {
		defer late.Close()
	}
	select {
	case err := <-accepted:
		if err != nil {
			t.Fatalf("Accept after a client that left: %v; want the next client", err)
		}
	case <-ctx.Done():
		t.Fatal("Accept took no client within 10 s")
	}
}
