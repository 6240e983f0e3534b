package render

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
)

// pngSignature starts every PNG file.
var pngSignature = []byte("\x89PNG\r\n\x1a\n")

// RepairPNG drops the ancillary chunks of a PNG whose checksum is wrong
// (a colour profile, EXIF or text chunk damaged by whoever wrote the
// file), which Go's decoder rejects whole although the pixels are
// intact. Critical chunks (IHDR, PLTE, IDAT, IEND) are never touched: a
// file damaged there still fails to decode, and says so. It returns the
// repaired copy and whether anything was dropped; data that is not a
// PNG comes back as it is.
func RepairPNG(data []byte) ([]byte, bool) {
	if !bytes.HasPrefix(data, pngSignature) {
		return data, false
	}
	out := append([]byte(nil), pngSignature...)
	dropped := false
	for i := len(pngSignature); i < len(data); {
		if len(data)-i < 12 {
			out = append(out, data[i:]...) // a truncated tail: the decoder says what is wrong
			break
		}
		n := int(binary.BigEndian.Uint32(data[i : i+4]))
		end := i + 12 + n
		if n < 0 || end > len(data) || end < i {
			out = append(out, data[i:]...)
			break
		}
		typ, body := data[i+4:i+8], data[i+4:i+8+n]
		ancillary := typ[0]&0x20 != 0
		if ancillary && crc32.ChecksumIEEE(body) != binary.BigEndian.Uint32(data[i+8+n:end]) {
			dropped = true
		} else {
			out = append(out, data[i:end]...)
		}
		i = end
	}
	if !dropped {
		return data, false
	}
	return out, true
}
