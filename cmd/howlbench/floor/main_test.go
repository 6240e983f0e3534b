package main

import (
	"bufio"
	"io"
	"testing"
	"time"
)

// TestUntilQuoteDoesNotWaitForBytesAfterTheAnswer pins the floor's blob
// read: the server sends nothing after its answer until the next request,
// so reading up to the closing quote must not wait for a full buffer.
func TestUntilQuoteDoesNotWaitForBytesAfterTheAnswer(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	go func() { _, _ = pw.Write([]byte("QUJD\"}}\n")) }() // then silence, the pipe open
	u := &untilQuote{r: bufio.NewReaderSize(pr, 64<<10)}
	got := make(chan string, 1)
	go func() {
		b, _ := io.ReadAll(u)
		got <- string(b)
	}()
	select {
	case s := <-got:
		if s != "QUJD" {
			t.Fatalf("read %q up to the quote, want %q", s, "QUJD")
		}
	case <-time.After(30 * time.Second):
		pw.Close() // ends the reader goroutine
		t.Fatal("untilQuote waited for bytes the server never sends (it asked the buffer for more than had arrived)")
	}
}
