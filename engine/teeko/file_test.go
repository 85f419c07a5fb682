package teeko

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

var savedStandard = sync.OnceValues(func() ([]byte, error) {
	var buf bytes.Buffer
	err := shared.tb[Standard].Save(&buf)
	return buf.Bytes(), err
})

func savedTable(t *testing.T) []byte {
	t.Helper()
	testTablebase(t, Standard)
	data, err := savedStandard()
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func sameTables(a, b *Tablebase) bool {
	if a.rules != b.rules || !bytes.Equal(a.move, b.move) {
		return false
	}
	for s := range a.byStyle {
		for k := range a.byStyle[s] {
			if !bytes.Equal(a.byStyle[s][k], b.byStyle[s][k]) {
				return false
			}
		}
	}
	return true
}

func TestSaveLoad(t *testing.T) {
	data := savedTable(t)
	tb, err := Load(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if !sameTables(tb, shared.tb[Standard]) {
		t.Fatal("loaded tables differ from the saved ones")
	}
	t.Logf("standard table file: %d bytes", len(data))

	dir := t.TempDir()
	path := TablePath(dir, Standard)
	if filepath.Base(path) != "teeko-standard-v1.tb" {
		t.Errorf("TablePath: %s", path)
	}
	if _, err := LoadFile(path, Standard); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadFile(path, Standard); err != nil {
		t.Errorf("LoadFile: %v", err)
	}
	if _, err := LoadFile(path, Advanced); !errors.Is(err, ErrCorruptTable) {
		t.Errorf("LoadFile with other rules: %v, want ErrCorruptTable", err)
	}
	if err := tb.SaveFile(filepath.Join(dir, "copy.tb")); err != nil {
		t.Fatal(err)
	}
	if again, err := os.ReadFile(filepath.Join(dir, "copy.tb")); err != nil || !bytes.Equal(again, data) {
		t.Errorf("SaveFile wrote other bytes than Save (%v)", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("SaveFile left %d files in the directory, want 2", len(entries))
	}
	// Readable by the processes of other users (an image's, a volume's).
	if fi, err := os.Stat(filepath.Join(dir, "copy.tb")); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("SaveFile's mode: %v, %v; want 0644", fi.Mode(), err)
	}
}

// TestBuildFileChecksTheDirectory: a directory the table cannot be
// written to fails before the build (/proc/self refuses files even to
// root; the cancelled context would end a build at once).
func TestBuildFileChecksTheDirectory(t *testing.T) {
	if _, err := os.Stat("/proc/self"); err != nil {
		t.Skip("no /proc here")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := BuildFile(ctx, "/proc/self", Standard, 1, nil)
	if err == nil || !strings.Contains(err.Error(), "could not be saved") {
		t.Errorf("BuildFile into /proc/self: %v", err)
	}
}

func TestCorruptTable(t *testing.T) {
	data := savedTable(t)
	bad := map[string][]byte{
		"empty":      {},
		"magic only": data[:8],
		"no crc":     data[:len(data)-4],
		"trailing":   append(append([]byte{}, data...), 0),
	}
	for _, n := range []int{20, 24, 100, len(data) / 2, len(data) - 5, len(data) - 1} {
		bad["truncated to "+strconv.Itoa(n)] = data[:n]
	}
	for _, off := range []int{0, 9, 12, 16, 20, 30, 200, len(data) / 3, len(data) - 100, len(data) - 2} {
		d := append([]byte{}, data...)
		d[off] ^= 0x10
		bad["flipped byte "+strconv.Itoa(off)] = d
	}
	// A valid checksum does not make a wrong header acceptable.
	for name, patch := range map[string]func(d []byte){
		"version 2":    func(d []byte) { binary.LittleEndian.PutUint32(d[8:], 2) },
		"rules 7":      func(d []byte) { d[12] = 7 },
		"entries":      func(d []byte) { binary.LittleEndian.PutUint32(d[16:], 5) },
		"table count":  func(d []byte) { binary.LittleEndian.PutUint32(d[20:], 3) },
		"table level":  func(d []byte) { d[24] = 9 },
		"payload size": func(d []byte) { binary.LittleEndian.PutUint32(d[24+8*20:], 1) },
	} {
		d := append([]byte{}, data...)
		patch(d)
		body := d[:len(d)-4]
		binary.LittleEndian.PutUint32(d[len(d)-4:], crc32.ChecksumIEEE(body))
		bad["resealed "+name] = d
	}
	for name, d := range bad {
		tb, err := Load(bytes.NewReader(d))
		if !errors.Is(err, ErrCorruptTable) || tb != nil {
			t.Errorf("%s: Load gave %v, want ErrCorruptTable", name, err)
		}
	}
}
