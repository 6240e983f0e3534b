// Command floor is the least a client can do for two of howlbench's
// comparisons, with the standard library only, so that howl's time and
// memory are set beside what the work itself costs on the same server:
//
//	floor list COMMAND [ARGS...]          spawn, initialize, list every page of every
//	                                      advertised kind (each page decoded once),
//	                                      print the items as one JSON array, close
//	floor read URI OUT COMMAND [ARGS...]  spawn, initialize, read URI, and stream the
//	                                      blob's base64 through a decoder into OUT
//	                                      without ever holding the answer, close
//	floor version                         print a line: a Go program's start-up
//
// "close" is what a polite client does: close the server's stdin and wait
// for it to exit.
package main

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "floor:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) == 1 && args[0] == "version" {
		fmt.Println("floor")
		return nil
	}
	if len(args) < 2 {
		return errors.New("usage: floor list COMMAND [ARGS...] | floor read URI OUT COMMAND [ARGS...]")
	}
	mode := args[0]
	var uri, out string
	args = args[1:]
	if mode == "read" {
		if len(args) < 3 {
			return errors.New("usage: floor read URI OUT COMMAND [ARGS...]")
		}
		uri, out, args = args[0], args[1], args[2:]
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	c := &conn{in: stdin, out: bufio.NewReaderSize(stdout, 64<<10)}
	var caps struct {
		Capabilities map[string]json.RawMessage `json:"capabilities"`
	}
	if err := c.call("initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"floor","version":"1"}}`, &caps); err != nil {
		return err
	}
	fmt.Fprintln(stdin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	switch mode {
	case "list":
		err = list(c, caps.Capabilities)
	case "read":
		err = read(c, uri, out)
	default:
		err = fmt.Errorf("unknown mode %q", mode)
	}
	stdin.Close()
	if werr := cmd.Wait(); err == nil && werr != nil {
		err = werr
	}
	return err
}

type conn struct {
	in  io.Writer
	out *bufio.Reader
	id  int
}

// send writes a request and returns its id.
func (c *conn) send(method, params string) int {
	c.id++
	fmt.Fprintf(c.in, `{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`+"\n", c.id, method, params)
	return c.id
}

// call sends a request and decodes its answer's result into v, once.
func (c *conn) call(method, params string, v any) error {
	id := c.send(method, params)
	for {
		line, err := c.out.ReadBytes('\n')
		if err != nil {
			return fmt.Errorf("%s: %w", method, err)
		}
		var msg struct {
			ID     *int            `json:"id"`
			Method string          `json:"method"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal(line, &msg); err != nil {
			return err
		}
		if msg.ID == nil || *msg.ID != id || msg.Method != "" {
			continue // a notification
		}
		if msg.Error != nil {
			return fmt.Errorf("%s: %s", method, msg.Error)
		}
		return json.Unmarshal(msg.Result, v)
	}
}

func list(c *conn, caps map[string]json.RawMessage) error {
	var kinds [][2]string
	if caps["tools"] != nil {
		kinds = append(kinds, [2]string{"tools/list", "tools"})
	}
	if caps["resources"] != nil {
		kinds = append(kinds, [2]string{"resources/list", "resources"}, [2]string{"resources/templates/list", "resourceTemplates"})
	}
	if caps["prompts"] != nil {
		kinds = append(kinds, [2]string{"prompts/list", "prompts"})
	}
	var items []json.RawMessage
	for _, k := range kinds {
		cursor := ""
		for {
			params := "{}"
			if cursor != "" {
				params = fmt.Sprintf(`{"cursor":%q}`, cursor)
			}
			var page struct {
				Tools             []json.RawMessage `json:"tools"`
				Resources         []json.RawMessage `json:"resources"`
				ResourceTemplates []json.RawMessage `json:"resourceTemplates"`
				Prompts           []json.RawMessage `json:"prompts"`
				NextCursor        string            `json:"nextCursor"`
			}
			if err := c.call(k[0], params, &page); err != nil {
				return err
			}
			items = append(items, page.Tools...)
			items = append(items, page.Resources...)
			items = append(items, page.ResourceTemplates...)
			items = append(items, page.Prompts...)
			if page.NextCursor == "" || page.NextCursor == cursor {
				break
			}
			cursor = page.NextCursor
		}
	}
	w := bufio.NewWriterSize(os.Stdout, 64<<10)
	w.WriteString("[")
	for i, it := range items {
		if i > 0 {
			w.WriteString(",\n")
		}
		w.Write(it)
	}
	w.WriteString("]\n")
	return w.Flush()
}

// read streams the blob of the read's answer into out: the line is read a
// buffer at a time, and only the base64 between "blob":" and the closing
// quote goes on, through a decoder.
func read(c *conn, uri, out string) error {
	c.send("resources/read", fmt.Sprintf(`{"uri":%q}`, uri))
	key := []byte(`"blob":"`)
	// Skip to the blob's first character.
	matched := 0
	for matched < len(key) {
		b, err := c.out.ReadByte()
		if err != nil {
			return fmt.Errorf("no blob in the answer: %w", err)
		}
		switch {
		case b == key[matched]:
			matched++
		case b == key[0]:
			matched = 1
		default:
			matched = 0
		}
	}
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	defer f.Close()
	dec := base64.NewDecoder(base64.StdEncoding, &untilQuote{r: c.out})
	if _, err := io.Copy(f, dec); err != nil {
		return err
	}
	_, err = c.out.ReadBytes('\n') // the rest of the answer
	return err
}

// untilQuote reads up to (not including) the next '"'.
type untilQuote struct {
	r    *bufio.Reader
	done bool
}

func (u *untilQuote) Read(p []byte) (int, error) {
	if u.done {
		return 0, io.EOF
	}
	// Peek only what has arrived (at least a byte): asking for more would
	// wait for bytes the server sends only after our next request.
	if _, err := u.r.Peek(1); err != nil {
		return 0, err
	}
	buf, _ := u.r.Peek(min(len(p), u.r.Buffered()))
	if i := bytes.IndexByte(buf, '"'); i >= 0 {
		buf, u.done = buf[:i], true
	}
	n := copy(p, buf)
	u.r.Discard(n)
	return n, nil
}
