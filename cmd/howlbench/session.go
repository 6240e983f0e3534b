package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// sessionWarm is the regime of the session comparison: the clients start
// fresh each run (that is what a script does), the connections they use
// were opened once.
const sessionWarm = "warm connection, cold client: each run is a fresh client process; howl's session and mcpdo's daemon opened the demo once, untimed, and one untimed call warmed each up; the cold howl call starts its own demo server each run"

// mcpdoBin is mcpdo's entry point in .ci/bench (bin mcpdo of
// @modelcontextprotocol/inspector).
func (e *env) mcpdoBin() (script, version string, ok bool) {
	pkg := filepath.Join(e.bench, "node_modules", "@modelcontextprotocol", "inspector")
	script = filepath.Join(pkg, "clients", "mcpdo", "build", "mcp-bin.js")
	var meta struct {
		Version string `json:"version"`
	}
	b, err := os.ReadFile(filepath.Join(pkg, "package.json"))
	if err == nil {
		_ = json.Unmarshal(b, &meta)
	}
	if _, err := os.Stat(script); err != nil || e.node == "" {
		return "", "", false
	}
	return script, meta.Version, true
}

// sessionCall is issue 22's comparison: one echo call on the demo through
// howl's open session (howl serve-session, then howl call --session),
// through mcpdo with its daemon connected (mcpdo connect, then mcpdo
// tools/call), and as a cold howl call. The two daemons' own peaks and
// their servers' are reported apart from the clients'.
func sessionCall() comparison {
	const name = "session-call"
	var sessionPID, mcpdodPID int
	return comparison{name: name, regime: sessionWarm,
		title: "Call echo on the demo (stdio, howl demo-server): howl call through an open session (howl serve-session) against mcpdo with its daemon connected against a cold howl call",
		goal:  "report the paired ratio of a script's call through each client's open connection; the cold call is the reference for what the session saves",
		prepare: func(e *env) ([]subject, []string, func()) {
			sessionPID, mcpdodPID = 0, 0
			var skipped []string
			var cleanups []func()
			cleanup := func() {
				for i := len(cleanups) - 1; i >= 0; i-- {
					cleanups[i]()
				}
			}
			// Both daemons run the same server command; the cold call's
			// runs under detach, its memory apart.
			cfg := e.writeServerConfig(name, "demo", e.howl, "demo-server")
			coldCfg, coldPid := e.demoConfig(name+"-cold", "demo")
			echo := []string{"call", "demo", "echo", "message=hi"}
			var subs []subject

			rt := filepath.Join(e.tmp, "run")
			howlEnv := append(e.howlEnv(name), "XDG_RUNTIME_DIR="+rt)
			stop, pid, err := e.startSession(cfg, rt, howlEnv)
			if err != nil {
				skipped = append(skipped, "howl call --session: "+err.Error())
			} else {
				cleanups = append(cleanups, stop)
				sessionPID = pid
				client := func(ctx context.Context) (sample, error) {
					return measure(ctx, proc{dir: e.cwd, env: howlEnv, name: e.howl, args: []string{"call", "--session", "demo", "echo", "message=hi"}})
				}
				if _, err := client(context.Background()); err != nil {
					skipped = append(skipped, "howl call --session: the untimed first call failed: "+err.Error())
				} else {
					subs = append(subs, subject{name: "howl call --session", role: roleHowl, run: client})
				}
			}

			if script, version, ok := e.mcpdoBin(); !ok {
				skipped = append(skipped, "mcpdo: .ci/bench is not installed (run: cd .ci/bench && npm ci)")
			} else {
				env, stop, pid, err := e.connectMcpdo(script, cfg)
				if stop != nil {
					cleanups = append(cleanups, stop)
				}
				if err != nil {
					skipped = append(skipped, "mcpdo "+version+": "+err.Error())
				} else {
					mcpdodPID = pid
					client := func(ctx context.Context) (sample, error) {
						return measure(ctx, proc{dir: e.tmp, env: env, name: e.node, args: []string{script, "--connection", "demo", "tools/call", "echo", "message:=hi"}})
					}
					if _, err := client(context.Background()); err != nil {
						skipped = append(skipped, "mcpdo "+version+": the untimed first call failed: "+err.Error())
					} else {
						subs = append(subs, subject{name: "mcpdo " + version + " tools/call (daemon connected)", role: rolePeer, run: client})
					}
				}
			}
			subs = append(subs, subject{name: "cold howl call (starts the demo)", role: roleRef, run: e.howlRun(name, coldCfg, coldPid, echo...)})
			return subs, skipped, cleanup
		},
		notes: func(rows []Row) []string {
			var out []string
			sess, peer, coldRow := rowOf(rows, "howl call --session"), rowOf(rows, "mcpdo"), rowOf(rows, "cold howl call")
			if sess != nil && peer != nil && peer.Ratio != nil {
				out = append(out, fmt.Sprintf("howl session / mcpdo = %.2f in time (mcpdo takes %.2fx as long a call, median of the paired runs)", 1 / *peer.Ratio, *peer.Ratio))
			}
			if sess != nil && coldRow != nil && coldRow.Ratio != nil {
				out = append(out, fmt.Sprintf("cold howl call / howl session = %.2fx in time (median of the paired runs)", *coldRow.Ratio))
			}
			if line := daemonPeaks(sessionPID, mcpdodPID); line != "" {
				out = append(out, line)
			}
			return out
		},
	}
}

// daemonPeaks says the held-open side's memory: each daemon's own peak
// RSS so far and its server's, apart (Linux: /proc).
func daemonPeaks(sessionPID, mcpdodPID int) string {
	var parts []string
	peak := func(label string, pid int) {
		if pid == 0 {
			return
		}
		own := livePeakMB(pid)
		if own == 0 {
			return
		}
		var server float64
		for _, c := range childPIDs(pid) {
			server += livePeakMB(c)
		}
		parts = append(parts, fmt.Sprintf("%s %.0f MB (its demo server %.0f MB)", label, own, server))
	}
	peak("howl serve-session", sessionPID)
	peak("mcpdo's daemon (mcpdod)", mcpdodPID)
	if len(parts) == 0 {
		return ""
	}
	return "the daemons' own peak RSS, held open: " + strings.Join(parts, "; ")
}

// startSession runs howl serve-session on cfg with its socket under rt and
// waits until it says it listens; stop ends it.
func (e *env) startSession(cfg, rt string, env []string) (stop func(), pid int, err error) {
	if err := os.MkdirAll(rt, 0o700); err != nil {
		return nil, 0, err
	}
	cmd := exec.Command(e.howl, "--config", cfg, "serve-session", "--idle", "1h")
	cmd.Dir = e.cwd
	cmd.Env = append(os.Environ(), env...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, 0, err
	}
	if err := cmd.Start(); err != nil {
		return nil, 0, err
	}
	ready := make(chan bool, 1)
	go func() { // ends when the session's stdout closes
		sc := bufio.NewScanner(out)
		said := false
		for sc.Scan() {
			if !said && strings.HasPrefix(sc.Text(), "howl session at ") {
				said = true
				ready <- true
			}
		}
		if !said {
			ready <- false
		}
		_, _ = io.Copy(io.Discard, out)
	}()
	ended := func() {
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	}
	select {
	case ok := <-ready:
		if !ok {
			ended()
			return nil, 0, fmt.Errorf("serve-session ended before it listened: %s", firstLine(stderr.String()))
		}
	case <-time.After(runTimeout):
		_ = cmd.Process.Kill()
		ended()
		return nil, 0, fmt.Errorf("serve-session did not listen within %s: %s", runTimeout, firstLine(stderr.String()))
	}
	return func() {
		stopCmd := exec.Command(e.howl, "serve-session", "--stop")
		stopCmd.Dir, stopCmd.Env = e.cwd, cmd.Env
		_ = stopCmd.Run()
		ended()
	}, cmd.Process.Pid, nil
}

// connectMcpdo starts a private mcpdo daemon (its own directory and token,
// a HOME of its own) and connects it to cfg's demo; env is what each later
// mcpdo command needs, stop ends the daemon and its server.
func (e *env) connectMcpdo(script, cfg string) (env []string, stop func(), pid int, err error) {
	home := filepath.Join(e.tmp, "mcpdo-home")
	if err := os.MkdirAll(home, 0o700); err != nil {
		return nil, nil, 0, err
	}
	env = []string{"HOME=" + home, "MCP_INSPECTOR_SECRET_STORE=file", "NO_COLOR=1"}
	mcpdo := func(args ...string) ([]byte, error) {
		ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
		defer cancel()
		cmd := exec.CommandContext(ctx, e.node, append([]string{script}, args...)...)
		cmd.Dir = e.tmp
		cmd.Env = append(os.Environ(), env...)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			return out, fmt.Errorf("mcpdo %s: %v: %s %s", strings.Join(args, " "), err, firstLine(string(out)), firstLine(stderr.String()))
		}
		return out, nil
	}
	out, err := mcpdo("private")
	if err != nil {
		return nil, nil, 0, err
	}
	var daemonDir string
	for _, m := range regexp.MustCompile(`(?m)^export (\w+)='([^']*)'$`).FindAllStringSubmatch(string(out), -1) {
		env = append(env, m[1]+"="+m[2])
		if m[1] == "MCP_INSPECTOR_DAEMON_DIR" {
			daemonDir = m[2]
		}
	}
	if daemonDir == "" {
		return nil, nil, 0, fmt.Errorf("mcpdo private printed no daemon directory: %s", firstLine(string(out)))
	}
	var servers []int
	stop = func() {
		_, _ = mcpdo("daemon", "stop")
		if pid != 0 {
			reapPID(pid, 30*time.Second) // howlbench adopted it (a subreaper)
		}
		for _, s := range servers {
			reapPID(s, 10*time.Second)
		}
		_ = os.RemoveAll(daemonDir)
	}
	if _, err := mcpdo("--config", cfg, "connect", "demo"); err != nil {
		return nil, stop, 0, err
	}
	out, err = mcpdo("--format", "json", "daemon", "status")
	var status struct {
		PID int `json:"pid"`
	}
	if err == nil {
		err = json.Unmarshal(out, &status)
	}
	if err != nil {
		return nil, stop, 0, fmt.Errorf("mcpdo daemon status: %v", err)
	}
	pid = status.PID
	servers = childPIDs(pid)
	return env, stop, pid, nil
}
