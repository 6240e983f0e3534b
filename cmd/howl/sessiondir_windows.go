//go:build windows

package main

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

// On Windows a session listens on a named pipe, never a network port: its
// security descriptor lets only this user open it (owner and sole ACL
// entry: the user's SID, no inherited entries), remote clients are
// refused, and a client checks the pipe's owner is itself before it sends
// a verb, so a pipe another user made first under the name is refused.

// sessionAddress is the pipe's name: the user's SID, and a hash of
// XDG_RUNTIME_DIR when it is set (a separate session, as on Unix).
func sessionAddress() (string, error) {
	sid, err := userSID()
	if err != nil {
		return "", err
	}
	name := `\\.\pipe\howl-session-` + sid.String()
	if rt := os.Getenv("XDG_RUNTIME_DIR"); rt != "" {
		name += fmt.Sprintf("-%x", sha256.Sum256([]byte(rt)))[:17]
	}
	return name, nil
}

func userSID() (*windows.SID, error) {
	u, err := windows.GetCurrentProcessToken().GetTokenUser()
	if err != nil {
		return nil, fmt.Errorf("reading your user's SID, which guards the session's pipe: %w", err)
	}
	return u.User.Sid, nil
}

// sessionListen creates the pipe (its first instance: a name already
// taken is refused) and accepts connections on it.
func sessionListen(name string) (net.Listener, error) {
	l := &pipeListener{name: name}
	h, err := l.instance(true)
	if err != nil {
		if errors.Is(err, windows.ERROR_ACCESS_DENIED) || errors.Is(err, windows.ERROR_PIPE_BUSY) {
			return nil, fmt.Errorf("the pipe %s is already taken (another session, or another program): stop that session with howl serve-session --stop", name)
		}
		return nil, err
	}
	l.next = h
	return l, nil
}

// pipeListener keeps one instance of the pipe waiting for a client: the
// next is made as soon as one connects, so a client never finds no pipe.
type pipeListener struct {
	name   string
	mu     sync.Mutex
	next   windows.Handle
	closed bool
}

func (l *pipeListener) instance(first bool) (windows.Handle, error) {
	sid, err := userSID()
	if err != nil {
		return 0, err
	}
	sd, err := windows.SecurityDescriptorFromString("O:" + sid.String() + "D:P(A;;GA;;;" + sid.String() + ")")
	if err != nil {
		return 0, err
	}
	sa := &windows.SecurityAttributes{Length: uint32(unsafe.Sizeof(windows.SecurityAttributes{})), SecurityDescriptor: sd}
	flags := uint32(windows.PIPE_ACCESS_DUPLEX | windows.FILE_FLAG_OVERLAPPED)
	if first {
		flags |= windows.FILE_FLAG_FIRST_PIPE_INSTANCE
	}
	p, err := windows.UTF16PtrFromString(l.name)
	if err != nil {
		return 0, err
	}
	return windows.CreateNamedPipe(p, flags, windows.PIPE_TYPE_BYTE|windows.PIPE_READMODE_BYTE|windows.PIPE_WAIT|windows.PIPE_REJECT_REMOTE_CLIENTS,
		windows.PIPE_UNLIMITED_INSTANCES, 64<<10, 64<<10, 0, sa)
}

func (l *pipeListener) Accept() (net.Conn, error) {
	l.mu.Lock()
	h := l.next
	closed := l.closed
	l.mu.Unlock()
	if closed {
		return nil, net.ErrClosed
	}
	ev, err := windows.CreateEvent(nil, 1, 0, nil)
	if err != nil {
		return nil, err
	}
	defer windows.CloseHandle(ev)
	ov := &windows.Overlapped{HEvent: ev}
	err = windows.ConnectNamedPipe(h, ov)
	for errors.Is(err, windows.ERROR_NO_DATA) {
		// A client connected and left before this wait began (serve-session
		// probes for a running session that way): the instance must be
		// disconnected before it can take the next client. Not an error of
		// the listener's, which would end the session.
		if err = windows.DisconnectNamedPipe(h); err == nil {
			err = windows.ConnectNamedPipe(h, ov)
		}
	}
	if errors.Is(err, windows.ERROR_IO_PENDING) {
		var n uint32
		err = windows.GetOverlappedResult(h, ov, &n, true) // Close cancels it
	}
	if err != nil && !errors.Is(err, windows.ERROR_PIPE_CONNECTED) {
		l.mu.Lock()
		closed = l.closed
		l.mu.Unlock()
		if closed {
			return nil, net.ErrClosed
		}
		return nil, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed { // Close ended h as it connected
		return nil, net.ErrClosed
	}
	next, err := l.instance(false)
	if err != nil {
		return nil, err // h stays l.next: Close ends it
	}
	l.next = next
	return newPipeConn(h, l.name), nil
}

// Close ends the waiting instance; a pending Accept returns net.ErrClosed.
func (l *pipeListener) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil
	}
	l.closed = true
	_ = windows.CancelIoEx(l.next, nil)
	return windows.CloseHandle(l.next)
}

func (l *pipeListener) Addr() net.Addr { return pipeAddr(l.name) }

// sessionDial opens the pipe and checks that this user owns it.
func sessionDial(ctx context.Context, name string) (net.Conn, error) {
	p, err := windows.UTF16PtrFromString(name)
	if err != nil {
		return nil, err
	}
	for {
		h, err := windows.CreateFile(p, windows.GENERIC_READ|windows.GENERIC_WRITE, 0, nil, windows.OPEN_EXISTING,
			windows.FILE_FLAG_OVERLAPPED|windows.SECURITY_SQOS_PRESENT|windows.SECURITY_IDENTIFICATION, 0)
		if err == nil {
			if err := ownedByMe(h, name); err != nil {
				windows.CloseHandle(h)
				return nil, err
			}
			return newPipeConn(h, name), nil
		}
		if !errors.Is(err, windows.ERROR_PIPE_BUSY) {
			return nil, fmt.Errorf("no session at %s (%v): start one with howl serve-session", name, err)
		}
		// Every instance is taken for the moment: the session makes the next.
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("the session at %s is busy: %w", name, ctx.Err())
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// ownedByMe refuses a pipe whose owner is not this user.
func ownedByMe(h windows.Handle, name string) error {
	sid, err := userSID()
	if err != nil {
		return err
	}
	sd, err := windows.GetSecurityInfo(h, windows.SE_KERNEL_OBJECT, windows.OWNER_SECURITY_INFORMATION)
	if err != nil {
		return fmt.Errorf("reading the owner of the session pipe %s: %w", name, err)
	}
	owner, _, err := sd.Owner()
	if err != nil || owner == nil || !owner.Equals(sid) {
		return fmt.Errorf("the session pipe %s belongs to another user (%v), not you (%s): it is not your session; stop the program that made it", name, owner, sid)
	}
	return nil
}

// pipeConn is a connected pipe instance: an overlapped handle in the Go
// runtime's completion port, so deadlines work.
type pipeConn struct {
	*os.File
	name string
}

func newPipeConn(h windows.Handle, name string) *pipeConn {
	return &pipeConn{File: os.NewFile(uintptr(h), name), name: name}
}

func (c *pipeConn) LocalAddr() net.Addr  { return pipeAddr(c.name) }
func (c *pipeConn) RemoteAddr() net.Addr { return pipeAddr(c.name) }

type pipeAddr string

func (a pipeAddr) Network() string { return "pipe" }
func (a pipeAddr) String() string  { return string(a) }
