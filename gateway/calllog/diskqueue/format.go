package diskqueue

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
)

// On disk a queue is a directory of segment files named by a growing
// number (00000000000000000001.seg, ...), a cursor file and a lock file.
//
// A segment starts with an 8-byte header (segmentMagic) and then holds
// records, each a 4-byte little-endian payload length, a 4-byte CRC-32C of
// the length's bytes and the payload, and the payload. The checksum covers
// the length so that zeros (what a file system may leave in blocks a crash
// did not write) are no record: the CRC-32C of an empty payload alone is
// 0. A record is only ever appended, so a crash can leave at most a torn
// last record, which Open cuts off. Other damage (zeros a power loss left
// in blocks never written, a bad block) Open cuts out of its segment,
// finding the next record after it by its length and checksum (scan.go).
//
// The cursor file holds the position everything before which was
// acknowledged: cursorMagic, the segment number and the offset (8 bytes
// each, little-endian) and a CRC-32C of those 20 bytes. It is rewritten in
// place; a torn or missing cursor makes Open start at the oldest segment,
// which may deliver acknowledged records again but loses none.

const (
	segmentMagic = "RGLQseg1"
	cursorMagic  = "RGLQ"
	headerSize   = int64(len(segmentMagic))
	recordHeader = 8
	cursorSize   = 4 + 8 + 8 + 4
	// MaxRecord is the largest payload a record may carry; a length field
	// above it marks a corrupt record.
	MaxRecord = 16 << 20
	segSuffix = ".seg"
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// errCorrupt marks a record whose length or checksum is wrong.
var errCorrupt = errors.New("diskqueue: corrupt record")

// errShort marks a record cut short by the end of the data.
var errShort = errors.New("diskqueue: truncated record")

// appendRecord appends payload as one record.
func appendRecord(dst, payload []byte) []byte {
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(payload)))
	dst = binary.LittleEndian.AppendUint32(dst, recordChecksum(dst[len(dst)-4:], payload))
	return append(dst, payload...)
}

// recordChecksum is a record's CRC-32C: of its length field, then its
// payload.
func recordChecksum(length, payload []byte) uint32 {
	return crc32.Update(crc32.Checksum(length, castagnoli), castagnoli, payload)
}

// recordSize is the bytes a record of n payload bytes takes on disk.
func recordSize(n int) int64 { return int64(recordHeader + n) }

// nextRecord parses the record at the start of b and returns its payload
// and its size on disk. errShort means b ends inside the record (which may
// be whole on disk past b, or torn); errCorrupt means it can never be read.
func nextRecord(b []byte) (payload []byte, size int, err error) {
	if len(b) < recordHeader {
		return nil, 0, errShort
	}
	n := binary.LittleEndian.Uint32(b)
	if n > MaxRecord {
		return nil, 0, errCorrupt
	}
	end := recordHeader + int(n)
	if len(b) < end {
		return nil, 0, errShort
	}
	payload = b[recordHeader:end]
	if recordChecksum(b[:4], payload) != binary.LittleEndian.Uint32(b[4:]) {
		return nil, 0, errCorrupt
	}
	return payload, end, nil
}

// pos is a place in the queue: a segment and a byte offset in it.
type pos struct {
	seg uint64
	off int64
}

func (p pos) less(q pos) bool {
	return p.seg < q.seg || (p.seg == q.seg && p.off < q.off)
}

func encodeCursor(p pos) []byte {
	b := make([]byte, 0, cursorSize)
	b = append(b, cursorMagic...)
	b = binary.LittleEndian.AppendUint64(b, p.seg)
	b = binary.LittleEndian.AppendUint64(b, uint64(p.off))
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
}

// decodeCursor reads a cursor file's content; ok is false when it is
// missing, torn or not a cursor.
func decodeCursor(b []byte) (p pos, ok bool) {
	if len(b) < cursorSize || string(b[:4]) != cursorMagic {
		return pos{}, false
	}
	if crc32.Checksum(b[:cursorSize-4], castagnoli) != binary.LittleEndian.Uint32(b[cursorSize-4:]) {
		return pos{}, false
	}
	off := binary.LittleEndian.Uint64(b[12:])
	if off > 1<<62 {
		return pos{}, false
	}
	return pos{seg: binary.LittleEndian.Uint64(b[4:]), off: int64(off)}, true
}

func segmentName(id uint64) string { return fmt.Sprintf("%020d%s", id, segSuffix) }
