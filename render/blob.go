package render

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"strings"
)

// RenderBlob renders one base64 blob. It is decoded as a stream and never
// beyond MaxDecodedBlob bytes. When the decoded bytes are valid UTF-8 with no
// NUL byte they are paged as text under opts (pattern included), marked
// sniffed, whatever mimeType claims; otherwise they are spilled to store and
// a *SpillResult describes them. The item is a *TextResult or *SpillResult.
// Errors are *Error values: invalid opts, invalid base64, a blob over
// MaxDecodedBlob, or a failed spill (including a nil store).
func RenderBlob(store *SpillStore, server, uri, mimeType, b64 string, opts PageOptions) (Item, error) {
	p, err := newPager(opts)
	if err != nil {
		return nil, err
	}
	b, err := decodeBlob(store, server, uri, mimeType, b64)
	if err != nil {
		return nil, err
	}
	uri, mimeType = clampMeta(uri), clampMeta(mimeType)
	if b.spill != nil {
		b.spill.URI, b.spill.MimeType = uri, mimeType
		return b.spill, nil
	}
	return pageSniffed(p, p.prepare(b.text), uri, mimeType, p.maxBytes), nil
}

// pageSniffed pages text that came from a blob and says so.
func pageSniffed(p *pager, s stream, uri, mimeType string, maxBytes int) *TextResult {
	r := p.page(s, uri, mimeType, maxBytes)
	r.Sniffed = true
	r.Note = fmt.Sprintf("blob decoded to valid UTF-8 (claimed mime type %q) and is shown as text; %s",
		clampDisplay(mimeType), r.Note)
	return r
}

// decodedBlob is a decoded blob: its text when it sniffed as text, else the
// description of its spill file.
type decodedBlob struct {
	text  string
	spill *SpillResult
}

// blobChunk is the decode buffer size; it bounds the memory a binary blob
// costs beyond its base64 input.
const blobChunk = 64 << 10

// decodeBlob streams b64 through a base64 decoder, hashing the bytes and
// sniffing them for text; label names the blob in errors (its URI, or the
// tool content item it came from). Text is kept in memory, since it is going
// to be shown; from the first byte that rules text out, the bytes go to a
// temp file in the server's spill directory instead, which is then committed.
// b64 is a string or, read from a server's answer without a copy, bytes.
func decodeBlob[B string | []byte](store *SpillStore, server, label, mimeType string, b64 B) (decodedBlob, error) {
	if err := checkDecodedSize(label, b64); err != nil {
		return decodedBlob{}, err
	}
	var src io.Reader
	switch b := any(b64).(type) {
	case string:
		src = strings.NewReader(b)
	case []byte:
		src = bytes.NewReader(b)
	}
	return decodeStream(store, server, label, mimeType, src, len(b64))
}

// decodeBlobFrom decodes n characters of base64 read from r, which has no
// line breaks (mcp's spool file leaves only pure base64 there).
func decodeBlobFrom(store *SpillStore, server, label, mimeType string, r io.Reader, n int64) (decodedBlob, error) {
	if err := checkBase64Chars(label, n); err != nil {
		return decodedBlob{}, err
	}
	return decodeStream(store, server, label, mimeType, bufio.NewReaderSize(r, 4*blobChunk), int(n))
}

// decodeStream decodes b64Len characters of base64 from src.
func decodeStream(store *SpillStore, server, label, mimeType string, src io.Reader, b64Len int) (decodedBlob, error) {
	d := blobDecoder{store: store, server: server, label: label, hash: sha256.New()}
	defer d.cleanup()
	if err := d.run(src, b64Len); err != nil {
		return decodedBlob{}, err
	}
	if d.file == nil && d.sniff.text() {
		return decodedBlob{text: d.text.String()}, nil
	}
	if err := d.toFile(); err != nil { // a blob ending mid-character
		return decodedBlob{}, err
	}
	if err := d.file.Close(); err != nil {
		return decodedBlob{}, d.spillError(err)
	}
	sum := hex.EncodeToString(d.hash.Sum(nil))
	path, err := store.commit(d.file.Name(), server, mimeType, sum, d.size)
	if err != nil {
		return decodedBlob{}, err
	}
	d.file = nil // committed: nothing to clean up
	return decodedBlob{spill: &SpillResult{
		Spilled: true, Path: path, MimeType: mimeType,
		SizeBytes: d.size, SHA256: sum,
	}}, nil
}

// checkDecodedSize rejects, before decoding anything, base64 that must
// decode to more than MaxDecodedBlob bytes.
func checkDecodedSize[B string | []byte](label string, b64 B) error {
	breaks := 0
	switch b := any(b64).(type) {
	case string:
		breaks = strings.Count(b, "\n") + strings.Count(b, "\r")
	case []byte:
		breaks = bytes.Count(b, []byte("\n")) + bytes.Count(b, []byte("\r"))
	}
	return checkBase64Chars(label, int64(len(b64)-breaks))
}

// checkBase64Chars rejects chars characters of base64 that must decode to
// more than MaxDecodedBlob bytes.
func checkBase64Chars(label string, chars int64) error {
	if minDecoded := chars/4*3 - 2; minDecoded > MaxDecodedBlob {
		return tooLarge(label, fmt.Sprintf("about %d bytes", minDecoded))
	}
	return nil
}

func tooLarge(label, size string) error {
	return newError(CodeBlobTooLarge, nil, fmt.Sprintf(
		"blob %q decodes to %s, over the %d-byte (%d MiB) MaxDecodedBlob ceiling: howl does not decode it; ask the server for a smaller resource or a narrower range",
		clampDisplay(label), size, MaxDecodedBlob, MaxDecodedBlob>>20))
}

type blobDecoder struct {
	store  *SpillStore
	server string
	label  string
	hash   hash.Hash
	sniff  textSniffer
	text   strings.Builder // the bytes while they are still text
	file   *os.File        // the temp file once they are not
	size   int64
}

func (d *blobDecoder) run(b64 io.Reader, b64Len int) error {
	dec := base64.NewDecoder(base64.StdEncoding, b64)
	buf := make([]byte, blobChunk)
	for {
		n, err := fill(dec, buf)
		if n > 0 {
			if d.size += int64(n); d.size > MaxDecodedBlob {
				return tooLarge(d.label, fmt.Sprintf("more than %d bytes", MaxDecodedBlob))
			}
			if werr := d.write(buf[:n], b64Len); werr != nil {
				return werr
			}
		}
		switch {
		case err == io.EOF:
			return nil
		case err != nil:
			return d.base64Error(err)
		}
	}
}

// fill reads until buf is full or the reader fails; io.EOF means a clean end.
func fill(r io.Reader, buf []byte) (int, error) {
	n := 0
	for n < len(buf) {
		m, err := r.Read(buf[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

func (d *blobDecoder) write(chunk []byte, b64Len int) error {
	d.hash.Write(chunk)
	if d.file == nil && d.sniff.write(chunk) {
		if d.text.Cap() == 0 {
			d.text.Grow(min(base64.StdEncoding.DecodedLen(b64Len), MaxDecodedBlob))
		}
		d.text.Write(chunk)
		return nil
	}
	if err := d.toFile(); err != nil {
		return err
	}
	if _, err := d.file.Write(chunk); err != nil {
		return d.spillError(err)
	}
	return nil
}

// toFile moves the decoded bytes so far from memory to a new temp file.
func (d *blobDecoder) toFile() error {
	if d.file != nil {
		return nil
	}
	if d.store == nil {
		return newError(CodeSpillFailed, nil, fmt.Sprintf(
			"blob %q is binary and must be spilled to disk, but no spill store is configured", clampDisplay(d.label)))
	}
	dir := d.store.serverDir(d.server)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return d.spillError(err)
	}
	f, err := os.CreateTemp(dir, tempPrefix+"*.tmp") // created 0600
	if err != nil {
		return d.spillError(err)
	}
	d.file = f
	if _, err := io.WriteString(f, d.text.String()); err != nil {
		return d.spillError(err)
	}
	d.text = strings.Builder{}
	return nil
}

// cleanup removes the temp file of a decode that did not commit.
func (d *blobDecoder) cleanup() {
	if d.file != nil {
		d.file.Close()
		os.Remove(d.file.Name())
	}
}

func (d *blobDecoder) spillError(err error) error {
	return newError(CodeSpillFailed, err, fmt.Sprintf(
		"could not spill blob %q under %s: %v; check that the cache directory is writable (set HOWL_CACHE_DIR to move it)",
		clampDisplay(d.label), d.store.Root, err))
}

func (d *blobDecoder) base64Error(err error) error {
	var reason string
	var corrupt base64.CorruptInputError
	switch {
	case errors.As(err, &corrupt):
		reason = fmt.Sprintf("an illegal character or misplaced padding near decoded byte %d", d.size)
	case errors.Is(err, io.ErrUnexpectedEOF):
		reason = "it ends in the middle of a 4-character group (missing padding?)"
	default:
		return newError(CodeInvalidBase64, err, fmt.Sprintf("could not decode blob %q: %v", clampDisplay(d.label), err))
	}
	return newError(CodeInvalidBase64, err, fmt.Sprintf(
		"blob %q is not valid base64: %s: the server must send standard padded base64 (RFC 4648 section 4)",
		clampDisplay(d.label), reason))
}
