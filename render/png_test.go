package render

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/png"
	"testing"
)

// pngWithBadProfile is a 4x4 PNG whose iCCP chunk (a colour profile) has
// a wrong checksum, as server-everything's get-tiny-image has.
func pngWithBadProfile(t *testing.T) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 4, 4))
	img.Set(1, 2, color.RGBA{R: 200, A: 255})
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	good := buf.Bytes()
	ihdrEnd := 8 + 12 + 13
	body := append([]byte("iCCP"), []byte("profile\x00\x00broken")...)
	chunk := binary.BigEndian.AppendUint32(nil, uint32(len(body)-4))
	chunk = append(chunk, body...)
	chunk = binary.BigEndian.AppendUint32(chunk, crc32.ChecksumIEEE(body)+1) // wrong
	return append(append(append([]byte(nil), good[:ihdrEnd]...), chunk...), good[ihdrEnd:]...)
}

func TestPNGWithADamagedColourProfileStillDecodes(t *testing.T) {
	data := pngWithBadProfile(t)
	if _, err := png.Decode(bytes.NewReader(data)); err == nil {
		t.Fatal("the fixture must be one Go's decoder rejects")
	}
	fixed, changed := RepairPNG(data)
	if !changed {
		t.Fatal("the damaged profile must be dropped")
	}
	img, err := png.Decode(bytes.NewReader(fixed))
	if err != nil {
		t.Fatalf("the repaired image must decode: %v", err)
	}
	if r, _, _, _ := img.At(1, 2).RGBA(); r>>8 != 200 {
		t.Errorf("the pixels must be intact: %v", img.At(1, 2))
	}
}

func TestRepairPNGLeavesGoodAndCriticallyDamagedFilesAlone(t *testing.T) {
	data := pngWithBadProfile(t)
	fixed, _ := RepairPNG(data)
	if again, changed := RepairPNG(fixed); changed || !bytes.Equal(again, fixed) {
		t.Error("a good PNG must come back unchanged")
	}
	broken := append([]byte(nil), fixed...)
	broken[len(broken)-20] ^= 0xff // inside IDAT or IEND: critical
	if _, changed := RepairPNG(broken); changed {
		t.Error("a critical chunk must never be dropped")
	}
	if out, changed := RepairPNG([]byte("not a png")); changed || string(out) != "not a png" {
		t.Error("non-PNG data must come back as it is")
	}
}
