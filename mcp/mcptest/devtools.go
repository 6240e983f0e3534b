package mcptest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// AppPage is a headless Chromium showing an MCP App's host page, driven
// over the DevTools protocol on a pipe (--remote-debugging-pipe: JSON
// messages ended by a NUL byte on file descriptors 3 and 4), so a test can
// read and click the app's own DOM inside howl's sandboxed iframe.
type AppPage struct {
	t        testing.TB
	toChrome io.WriteCloser
	replies  chan json.RawMessage
	nextID   int
	mu       sync.Mutex
}

// OpenAppPage opens url (a howl app address) in a headless Chromium that
// lives until the test ends.
func OpenAppPage(t testing.TB, browser, url string) *AppPage {
	t.Helper()
	chromeIn, toChrome, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	fromChrome, chromeOut, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--remote-debugging-pipe",
		"--user-data-dir="+chromiumProfile(t), url)
	cmd.ExtraFiles = []*os.File{chromeIn, chromeOut}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	chromeIn.Close()
	chromeOut.Close()
	p := &AppPage{t: t, toChrome: toChrome, replies: make(chan json.RawMessage, 64)}
	read := make(chan struct{})
	go func() {
		defer close(read)
		defer close(p.replies)
		r := bufio.NewReader(fromChrome)
		for {
			msg, err := r.ReadBytes(0)
			if err != nil {
				return
			}
			p.replies <- json.RawMessage(msg[:len(msg)-1])
		}
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		toChrome.Close()
		fromChrome.Close()
		for range p.replies { // drain: the reader ends with the pipe
		}
		<-read
	})
	return p
}

// call sends one DevTools command (to the browser, or to the target of
// session) and returns its result.
func (p *AppPage) call(session, method string, params any) (json.RawMessage, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.nextID++
	id := p.nextID
	msg := map[string]any{"id": id, "method": method, "params": params}
	if session != "" {
		msg["sessionId"] = session
	}
	b, _ := json.Marshal(msg)
	if _, err := p.toChrome.Write(append(b, 0)); err != nil {
		return nil, err
	}
	timeout := time.NewTimer(30 * time.Second)
	defer timeout.Stop()
	for {
		select {
		case raw, ok := <-p.replies:
			if !ok {
				return nil, fmt.Errorf("%s: chromium closed its DevTools pipe", method)
			}
			var r struct {
				ID     int             `json:"id"`
				Result json.RawMessage `json:"result"`
				Error  *struct {
					Message string `json:"message"`
				} `json:"error"`
			}
			if json.Unmarshal(raw, &r) != nil || r.ID != id {
				continue // an event, or an answer nobody waits for
			}
			if r.Error != nil {
				return nil, fmt.Errorf("%s: %s", method, r.Error.Message)
			}
			return r.Result, nil
		case <-timeout.C:
			return nil, fmt.Errorf("%s: no answer from chromium within 30s", method)
		}
	}
}

// evalInApp evaluates js in the app's document (the frame howl loads from
// its "view" address) and returns its value as a string ("" when the app's
// frame is not there yet). The frame is found as a target of its own (an
// out-of-process frame) or in the page's frame tree.
func (p *AppPage) evalInApp(js string) (string, error) {
	raw, err := p.call("", "Target.getTargets", map[string]any{})
	if err != nil {
		return "", err
	}
	var targets struct {
		TargetInfos []struct {
			TargetID string `json:"targetId"`
			Type     string `json:"type"`
			URL      string `json:"url"`
		} `json:"targetInfos"`
	}
	if err := json.Unmarshal(raw, &targets); err != nil {
		return "", err
	}
	var page string
	for _, ti := range targets.TargetInfos {
		if ti.Type == "iframe" && strings.HasSuffix(ti.URL, "/view") {
			session, err := p.attach(ti.TargetID)
			if err != nil {
				return "", err
			}
			return p.evaluate(session, js, 0)
		}
		if ti.Type == "page" && strings.Contains(ti.URL, "/app/") {
			page = ti.TargetID
		}
	}
	if page == "" {
		return "", nil
	}
	session, err := p.attach(page)
	if err != nil {
		return "", err
	}
	raw, err = p.call(session, "Page.getFrameTree", map[string]any{})
	if err != nil {
		return "", err
	}
	var tree struct {
		FrameTree struct {
			ChildFrames []struct {
				Frame struct {
					ID  string `json:"id"`
					URL string `json:"url"`
				} `json:"frame"`
			} `json:"childFrames"`
		} `json:"frameTree"`
	}
	if err := json.Unmarshal(raw, &tree); err != nil {
		return "", err
	}
	for _, c := range tree.FrameTree.ChildFrames {
		if !strings.HasSuffix(c.Frame.URL, "/view") {
			continue
		}
		raw, err := p.call(session, "Page.createIsolatedWorld", map[string]any{"frameId": c.Frame.ID, "worldName": "howl-test"})
		if err != nil {
			return "", err
		}
		var world struct {
			ContextID int `json:"executionContextId"`
		}
		if err := json.Unmarshal(raw, &world); err != nil {
			return "", err
		}
		return p.evaluate(session, js, world.ContextID)
	}
	return "", nil
}

func (p *AppPage) attach(target string) (string, error) {
	raw, err := p.call("", "Target.attachToTarget", map[string]any{"targetId": target, "flatten": true})
	if err != nil {
		return "", err
	}
	var a struct {
		SessionID string `json:"sessionId"`
	}
	return a.SessionID, json.Unmarshal(raw, &a)
}

func (p *AppPage) evaluate(session, js string, contextID int) (string, error) {
	params := map[string]any{"expression": "String(" + js + ")", "returnByValue": true}
	if contextID != 0 {
		params["contextId"] = contextID
	}
	raw, err := p.call(session, "Runtime.evaluate", params)
	if err != nil {
		return "", err
	}
	var r struct {
		Result struct {
			Value string `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Text string `json:"text"`
		} `json:"exceptionDetails"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return "", err
	}
	if r.ExceptionDetails != nil {
		return "", nil // the app's page is not ready for the expression yet
	}
	return r.Result.Value, nil
}

// WaitInApp evaluates js in the app's document until ok accepts its value,
// and returns that value; it fails the test after within.
func (p *AppPage) WaitInApp(js string, ok func(string) bool, within time.Duration) string {
	p.t.Helper()
	deadline := time.Now().Add(within)
	var last string
	for {
		v, err := p.evalInApp(js)
		if err != nil {
			p.t.Fatalf("evaluating %s in the app: %v", js, err)
		}
		if ok(v) {
			return v
		}
		last = v
		if time.Now().After(deadline) {
			p.t.Fatalf("in the app, %s is %q after %v: not what the test waits for", js, last, within)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
