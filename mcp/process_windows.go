package mcp

import (
	"fmt"
	"os/exec"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

// jobProcess is a Windows server in a job object of its own: every process
// the server starts joins the job, and terminating the job ends them all
// (closing its last handle too: JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE, so
// they end even if howl dies). The server also leads a console process
// group of its own, the target of Terminate's CTRL_BREAK.
type jobProcess struct {
	cmd *exec.Cmd
	pid uint32
	// process is howl's own handle to the server (to wait on and read its
	// exit code); job is 0 where no job could be made.
	process, job windows.Handle

	// mu is held for reading by every wait on process, for writing by
	// Release: a handle must not close under a wait.
	mu       sync.RWMutex
	released bool
}

// startServerProcess starts cmd suspended, puts it in a new job object,
// then lets it run: nothing it starts can escape the job.
func startServerProcess(cmd *exec.Cmd) (serverProcess, error) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.CreationFlags |= windows.CREATE_NEW_PROCESS_GROUP | windows.CREATE_SUSPENDED
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &jobProcess{cmd: cmd, pid: uint32(cmd.Process.Pid)}
	h, err := windows.OpenProcess(windows.SYNCHRONIZE|windows.PROCESS_QUERY_LIMITED_INFORMATION|windows.PROCESS_TERMINATE|windows.PROCESS_SET_QUOTA, false, p.pid)
	if err != nil {
		return nil, abandon(cmd, fmt.Errorf("opening the started server (pid %d): %w", p.pid, err))
	}
	p.process = h
	// Without a job (an old Windows that does not nest them), the server
	// still runs; Kill then ends the server alone.
	p.job, _ = newKillOnCloseJob(h)
	if err := resumeProcess(p.pid); err != nil {
		p.Release()
		return nil, abandon(cmd, fmt.Errorf("resuming the started server (pid %d): %w", p.pid, err))
	}
	return p, nil
}

// abandon kills and reaps a server that could not be set up, and returns err.
func abandon(cmd *exec.Cmd, err error) error {
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	return err
}

// newKillOnCloseJob makes a job object whose processes end when its last
// handle closes, and puts process in it.
func newKillOnCloseJob(process windows.Handle) (windows.Handle, error) {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return 0, err
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{}
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(job)
		return 0, err
	}
	if err := windows.AssignProcessToJobObject(job, process); err != nil {
		windows.CloseHandle(job)
		return 0, err
	}
	return job, nil
}

// resumeProcess resumes the threads of a process started suspended (one:
// its main thread). os/exec keeps no thread handle, so they are found in a
// snapshot of the system's threads.
func resumeProcess(pid uint32) error {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPTHREAD, 0)
	if err != nil {
		return err
	}
	defer windows.CloseHandle(snap)
	entry := windows.ThreadEntry32{Size: uint32(unsafe.Sizeof(windows.ThreadEntry32{}))}
	resumed := 0
	for err = windows.Thread32First(snap, &entry); err == nil; err = windows.Thread32Next(snap, &entry) {
		if entry.OwnerProcessID != pid {
			continue
		}
		th, err := windows.OpenThread(windows.THREAD_SUSPEND_RESUME, false, entry.ThreadID)
		if err != nil {
			return err
		}
		_, err = windows.ResumeThread(th)
		windows.CloseHandle(th)
		if err != nil {
			return err
		}
		resumed++
	}
	if resumed == 0 {
		return fmt.Errorf("no thread of the process was found")
	}
	return nil
}

// Terminate sends CTRL_BREAK to the server's console process group, the
// closest Windows has to SIGTERM (Go programs see it as os.Interrupt,
// Node as SIGBREAK). It fails where howl has no console to share.
func (p *jobProcess) Terminate() error {
	return windows.GenerateConsoleCtrlEvent(windows.CTRL_BREAK_EVENT, p.pid)
}

// Kill terminates the job, or the server alone where there is no job.
func (p *jobProcess) Kill() {
	p.mu.RLock()
	defer p.mu.RUnlock()
	if p.released {
		return
	}
	if p.job != 0 && windows.TerminateJobObject(p.job, 1) == nil {
		return
	}
	_ = windows.TerminateProcess(p.process, 1)
}

func (p *jobProcess) WaitExit(wait time.Duration) string {
	p.mu.RLock()
	defer p.mu.RUnlock()
	if p.released {
		return ""
	}
	ms := uint32(windows.INFINITE)
	if wait >= 0 {
		ms = uint32(min(wait.Milliseconds(), int64(windows.INFINITE-1)))
	}
	ev, err := windows.WaitForSingleObject(p.process, ms)
	if err != nil || ev != windows.WAIT_OBJECT_0 {
		if err != nil && wait < 0 {
			return fmt.Sprintf("server process cannot be watched (%v)", err)
		}
		return ""
	}
	var code uint32
	if err := windows.GetExitCodeProcess(p.process, &code); err != nil {
		return "server process ended"
	}
	if code >= 0xC0000000 { // an NTSTATUS error: the process crashed
		return fmt.Sprintf("server process crashed (exception 0x%08X)", code)
	}
	return exitedReason(int(code))
}

// Release closes the job (ending anything still in it) and the handle.
func (p *jobProcess) Release() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.released {
		return
	}
	p.released = true
	if p.job != 0 {
		windows.CloseHandle(p.job)
	}
	windows.CloseHandle(p.process)
}
