package teeko

import (
	"bytes"
	"compress/flate"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/gamesolver/gamesolver/engine/atomicfile"
)

// Table file format, all integers little-endian:
//
//	offset  size  field
//	0       8     magic "TEEKOTB\n"
//	8       4     format version (FormatVersion)
//	12      1     rules (0 standard, 1 advanced), then 3 zero bytes
//	16      4     number of move-phase entries
//	20      4     number of drop tables, n
//	24      8n    per drop table: level k (1 byte), key (1 byte), 2 zero
//	              bytes, number of entries (4 bytes)
//	24+8n   4     length of the payload, m
//	28+8n   m     payload: raw DEFLATE (compress/flate) of the move table
//	              followed by the drop tables in header order
//	28+8n+m 4     CRC-32 (IEEE) of every byte before it
//
// Entries are value bytes (see solve_move.go) in index order (index.go).
// Every size is checked against the one this version of the package
// computes, so a file of another layout is refused rather than misread.

// FormatVersion is the version of the table file format; it is part of the
// file name (TablePath) and of the header.
const FormatVersion = 1

var tableMagic = [8]byte{'T', 'E', 'E', 'K', 'O', 'T', 'B', '\n'}

// maxTableFile bounds what Load reads, far above a real file's size.
const maxTableFile = 64 << 20

// TablePath returns the path of the table file of a rule set in dir, e.g.
// dir/teeko-standard-v1.tb.
func TablePath(dir string, rules Rules) string {
	return filepath.Join(dir, fmt.Sprintf("teeko-%s-v%d.tb", rules, FormatVersion))
}

// Save writes the tablebase in the table file format.
func (tb *Tablebase) Save(w io.Writer) error {
	var payload bytes.Buffer
	zw, err := flate.NewWriter(&payload, flate.DefaultCompression)
	if err != nil {
		return err
	}
	if _, err := zw.Write(tb.move); err != nil {
		return err
	}
	var tables []byte
	nTables := 0
	for k := 0; k < DropPlies; k++ {
		for _, t := range tb.drop[k] {
			if _, err := zw.Write(t.val); err != nil {
				return err
			}
			tables = append(tables, uint8(k), t.key, 0, 0)
			tables = binary.LittleEndian.AppendUint32(tables, uint32(len(t.val)))
			nTables++
		}
	}
	if err := zw.Close(); err != nil {
		return err
	}
	hdr := append([]byte(nil), tableMagic[:]...)
	hdr = binary.LittleEndian.AppendUint32(hdr, FormatVersion)
	hdr = append(hdr, uint8(tb.rules), 0, 0, 0)
	hdr = binary.LittleEndian.AppendUint32(hdr, uint32(len(tb.move)))
	hdr = binary.LittleEndian.AppendUint32(hdr, uint32(nTables))
	hdr = append(hdr, tables...)
	hdr = binary.LittleEndian.AppendUint32(hdr, uint32(payload.Len()))

	crc := crc32.NewIEEE()
	mw := io.MultiWriter(w, crc)
	if _, err := mw.Write(hdr); err != nil {
		return err
	}
	if _, err := mw.Write(payload.Bytes()); err != nil {
		return err
	}
	_, err = w.Write(binary.LittleEndian.AppendUint32(nil, crc.Sum32()))
	return err
}

// corrupt returns an ErrCorruptTable error.
func corrupt(format string, args ...any) error {
	return errorf(ErrCorruptTable, "corrupt table file: "+format, args...)
}

// Load reads a tablebase written by Save. A truncated, damaged or foreign
// file, or one of another format version, gives an error satisfying
// errors.Is(err, ErrCorruptTable); a table is never returned from such a
// file.
func Load(r io.Reader) (*Tablebase, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxTableFile+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxTableFile {
		return nil, corrupt("larger than %d bytes", maxTableFile)
	}
	const fixed = 28 // header without the table list, plus the CRC
	if len(data) < fixed {
		return nil, corrupt("%d bytes, too short for a header", len(data))
	}
	if !bytes.Equal(data[:8], tableMagic[:]) {
		return nil, corrupt("not a Teeko table file (bad magic)")
	}
	le := binary.LittleEndian
	if v := le.Uint32(data[8:]); v != FormatVersion {
		return nil, corrupt("format version %d, expected %d", v, FormatVersion)
	}
	body, sum := data[:len(data)-4], le.Uint32(data[len(data)-4:])
	if crc32.ChecksumIEEE(body) != sum {
		return nil, corrupt("checksum mismatch (truncated or damaged)")
	}
	rules := Rules(data[12])
	if !rules.valid() {
		return nil, corrupt("unknown rules %d", data[12])
	}
	g := sharedGeometry()
	tb := &Tablebase{rules: rules, g: g}
	if n := le.Uint32(data[16:]); int(n) != g.levels[DropPlies].size {
		return nil, corrupt("%d move-phase entries, expected %d", n, g.levels[DropPlies].size)
	}
	nTables := int(le.Uint32(data[20:]))
	want := 0
	for k := 0; k < DropPlies; k++ {
		want += len(dropKeys(k))
	}
	if nTables != want {
		return nil, corrupt("%d drop tables, expected %d", nTables, want)
	}
	if len(body) < 24+8*nTables+4 {
		return nil, corrupt("header truncated")
	}
	total := g.levels[DropPlies].size
	type entry struct{ k, key, n int }
	var list []entry
	for i := 0; i < nTables; i++ {
		e := body[24+8*i:]
		k, key, n := int(e[0]), int(e[1]), int(le.Uint32(e[4:]))
		if k >= DropPlies || !slices.Contains(dropKeys(k), uint8(key)) || n != g.levels[k].size {
			return nil, corrupt("drop table %d: level %d key %d with %d entries is not in this format", i, k, key, n)
		}
		for _, o := range list {
			if o.k == k && o.key == key {
				return nil, corrupt("drop table level %d key %d appears twice", k, key)
			}
		}
		list = append(list, entry{k, key, n})
		total += n
	}
	off := 24 + 8*nTables
	m := int(le.Uint32(body[off:]))
	if off+4+m != len(body) {
		return nil, corrupt("payload length %d does not match the file size", m)
	}
	raw := make([]byte, total)
	zr := flate.NewReader(bytes.NewReader(body[off+4:]))
	if _, err := io.ReadFull(zr, raw); err != nil {
		return nil, corrupt("payload: %v", err)
	}
	if n, err := zr.Read(make([]byte, 1)); n != 0 || !errors.Is(err, io.EOF) {
		return nil, corrupt("payload longer than the header says")
	}
	tb.move = raw[:g.levels[DropPlies].size]
	raw = raw[len(tb.move):]
	for _, e := range list {
		tb.drop[e.k] = append(tb.drop[e.k], dropTable{key: uint8(e.key), val: raw[:e.n]})
		raw = raw[e.n:]
	}
	tb.link()
	return tb, nil
}

// SaveFile writes the tablebase to path atomically: to a temporary file in
// the same directory, renamed over path once complete (atomicfile.Replace:
// a link there is replaced, as BuildFile checks that directory before a
// build; readable by every user, whatever the mode of the file replaced:
// tables built by one user, or in an image, serve processes of another).
func (tb *Tablebase) SaveFile(path string) error {
	return atomicfile.Replace(path, 0o644, tb.Save)
}

// LoadFile loads the table file at path and checks that it solves rules
// (ErrCorruptTable otherwise). A missing file gives an error satisfying
// errors.Is(err, fs.ErrNotExist).
func LoadFile(path string, rules Rules) (*Tablebase, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	tb, err := Load(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if tb.rules != rules {
		return nil, fmt.Errorf("%s: %w", path, corrupt("holds %s rules, expected %s", tb.rules, rules))
	}
	return tb, nil
}

// BuildFile builds the tablebase of a rule set and saves it as
// TablePath(dir, rules), creating dir if needed; for command-line use with a
// progress bar. It returns the path written.
func BuildFile(ctx context.Context, dir string, rules Rules, workers int, progress func(Progress)) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	// A directory the table cannot be written to fails now, not after
	// the build.
	probe, err := os.CreateTemp(dir, ".write-check*")
	if err != nil {
		return "", fmt.Errorf("the table could not be saved: %w", err)
	}
	probe.Close()
	os.Remove(probe.Name())
	tb, err := Build(ctx, rules, workers, progress)
	if err != nil {
		return "", err
	}
	path := TablePath(dir, rules)
	return path, tb.SaveFile(path)
}
