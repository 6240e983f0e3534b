package mcp

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/howl-mcp/howl/mcp/demo"
)

// lockEnv names the file the lock-holder fixture locks.
const lockEnv = "HOWL_TEST_LOCK"

// serveSpawner is a server that starts a child of its own (the
// lock-holder, which keeps a file locked while it lives), waits until the
// child holds the lock, then serves and exits on stdin EOF, leaving the
// child behind, as a wrapper (npx, uvx, a shell script) may.
func serveSpawner() int {
	child := exec.Command(os.Args[0], "-test.run=^$")
	child.Env = append(os.Environ(), fixtureEnv+"=lock-holder")
	child.Stderr = os.Stderr
	out, err := child.StdoutPipe()
	if err != nil {
		return 1
	}
	if err := child.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "spawner:", err)
		return 1
	}
	if line, _ := bufio.NewReader(out).ReadString('\n'); line != "locked\n" {
		fmt.Fprintf(os.Stderr, "spawner: the child said %q\n", line)
		return 1
	}
	s := server.NewMCPServer("spawner", "1.0", server.WithToolCapabilities(false))
	if err := demo.ServeStdio(context.Background(), s, os.Stdin, os.Stdout); err != nil {
		return 1
	}
	return 0
}

// holdLock locks $HOWL_TEST_LOCK, says "locked" and lives until killed.
func holdLock() int {
	if _, err := lockFile(os.Getenv(lockEnv), time.Minute); err != nil {
		fmt.Fprintln(os.Stderr, "lock-holder:", err)
		return 1
	}
	fmt.Println("locked")
	time.Sleep(time.Hour)
	return 0
}

// A server's children end with it, even when the server itself exits as
// it should on stdin EOF: they are in its process group (Unix) or job
// object (Windows). The grandchild holds a file lock; the lock comes free
// only when the grandchild is gone.
func TestClosingAServerEndsTheProcessesItStarted(t *testing.T) {
	lock := filepath.Join(t.TempDir(), "held")
	sc := fixture("spawner")
	sc.Env[lockEnv] = lock
	// Time enough to exit on EOF by itself, before any signal is sent.
	sc.ShutdownGrace = 10 * time.Second
	rt := startRuntime(t, sc)
	if st, _ := rt.ServerStatus("spawner"); st.State != StateReady {
		t.Fatalf("spawner is %s: %s", st.State, st.Reason)
	}
	if unlock, err := lockFile(lock, 0); err == nil {
		unlock()
		t.Fatal("the lock is free while the server runs: the grandchild does not hold it")
	}
	rt.Close()
	unlock, err := lockFile(lock, 20*time.Second)
	if err != nil {
		t.Fatalf("the server's child still runs 20s after Close: %v", err)
	}
	unlock()
}

// A server that ignores stdin EOF is asked to end once the grace period
// is over (SIGTERM to its group; CTRL_BREAK on Windows), well before the
// kill that would follow shutdownTermWait later.
func TestClosingAServerThatIgnoresEOFAsksItToEndAfterTheGrace(t *testing.T) {
	sc := fixture("deaf-to-eof")
	sc.ShutdownGrace = 100 * time.Millisecond
	conn, took := closeTimed(t, startRuntime(t, sc), "deaf-to-eof")
	t.Logf("Close took %v; the server ended with %v", took, conn.cmd.ProcessState)
	if problem := notTerminated(conn.cmd.ProcessState, took, sc.ShutdownGrace); problem != "" {
		t.Error(problem)
	}
}

// closeTimed closes rt, checks the server named has ended, and says how
// long Close took.
func closeTimed(t *testing.T, rt *Runtime, name string) (*Conn, time.Duration) {
	t.Helper()
	conn, err := rt.Conn(name)
	if err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	rt.Close()
	took := time.Since(began)
	if conn.cmd.ProcessState == nil {
		t.Fatalf("%s still runs after Close", name)
	}
	return conn, took
}
