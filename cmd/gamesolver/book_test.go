package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gamesolver/gamesolver/engine/book"
	"github.com/gamesolver/gamesolver/service/jobs"
)

const bookTestMoves = "V:d2,e2,f2,d3,d4 I:h2,h3,h4,h5,h6 F:e4,f4,f5,g5,f6 Y:b5,b6,c6,b7,b8"

// TestBookBuildPosition classifies a small position directly and through
// the in-process job system: the files agree on every move's value. (The
// winning reply named for a losing move may differ: two classes searched
// at once share a table, and a reply the other search left there can be
// found first.)
func TestBookBuildPosition(t *testing.T) {
	var files [2][]byte
	// In process: REDIS_URL (set by make test) would send the job to Redis.
	for i, extra := range [][]string{nil, {"--jobs", "--redis-url", ""}} {
		dir := t.TempDir()
		var out, errb bytes.Buffer
		args := append([]string{"book", "build", "--what", "position", "--moves", bookTestMoves, "--out", dir, "--table-mb", "16", "--parallel", "2"}, extra...)
		if code := run(args, &out, &errb); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errb.String())
		}
		if !strings.Contains(out.String(), "247 classes classified, 13 win") {
			t.Fatalf("%v: %s", extra, out.String())
		}
		b, err := os.ReadFile(filepath.Join(dir, "position.txt"))
		if err != nil {
			t.Fatal(err)
		}
		f, err := book.Parse(b)
		if err != nil {
			t.Fatal(err)
		}
		for i, l := range f.Sections[0].Lines {
			if !l.Wins && l.Reply == "" {
				t.Fatalf("%v: %s loses with no reply named", extra, l.Move)
			}
			f.Sections[0].Lines[i] = book.Line{Move: l.Move, Class: l.Class, Wins: l.Wins}
		}
		files[i] = f.Format()
		if p, err := os.ReadFile(filepath.Join(dir, "progress.txt")); err == nil && i == 0 && bytes.Count(p, []byte("\n")) != 248 {
			t.Fatalf("progress.txt has %d lines, want 248", bytes.Count(p, []byte("\n")))
		}
	}
	if !bytes.Equal(files[0], files[1]) {
		t.Fatalf("direct and job builds differ:\n%s\n---\n%s", files[0], files[1])
	}
}

func TestBookVerifyAndStats(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"book", "verify", "--sample", "1", "--workers", "1", "--memo-bits", "20"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "sampled check passed: first move L:c5,d5,e5,f5,c6; 1189 replies in 1189 classes, each with a legal third move; 1 of the 1189") {
		t.Fatal(out.String())
	}
	bad := filepath.Join(t.TempDir(), "bad.txt")
	cert := strings.Replace(string(book.EmbeddedCertificate()), "F:a1,b1,b2,c2,b3 1 loss P:e3,f3,g3,f4,g4\n", "", 1)
	if err := os.WriteFile(bad, []byte(cert), 0o644); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	errb.Reset()
	if code := run([]string{"book", "verify", "--file", bad, "--sample", "1"}, &out, &errb); code == 0 || !strings.Contains(errb.String(), "no line for reply F:a1,b1,b2,c2,b3") {
		t.Fatalf("corrupt certificate: exit %d: %s", code, errb.String())
	}
	out.Reset()
	if code := run([]string{"book", "stats"}, &out, &errb); code != 0 || !strings.Contains(out.String(), "certificate.txt") || !strings.Contains(out.String(), "lengths-certificate.txt") || strings.Contains(out.String(), " 0 of them with the game's length") {
		t.Fatalf("stats: exit %d: %s", code, out.String())
	}
}

// TestBookRefutation proves a winning move of a small position by
// answering every reply, and the checker accepts the file; a losing move
// is refused.
func TestBookRefutation(t *testing.T) {
	dir := t.TempDir()
	var out, errb bytes.Buffer
	args := []string{"book", "build", "--what", "refutation", "--moves", bookTestMoves + " L:b1,c1,d1,e1,b2", "--out", dir, "--table-mb", "16"}
	if code := run(args, &out, &errb); code != 0 || !strings.Contains(out.String(), "L:b1,c1,d1,e1,b2 wins, all ") {
		t.Fatalf("exit %d: %s %s", code, out.String(), errb.String())
	}
	out.Reset()
	if code := run([]string{"book", "verify", "--file", filepath.Join(dir, "refutation.txt"), "--workers", "1", "--memo-bits", "16"}, &out, &errb); code != 0 {
		t.Fatalf("verify: exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "refutation accepted: after "+bookTestMoves+", L:b1,c1,d1,e1,b2 wins;") {
		t.Fatal(out.String())
	}
	errb.Reset()
	args = []string{"book", "build", "--what", "refutation", "--moves", bookTestMoves + " L:a1,b1,c1,d1,a2", "--out", dir, "--table-mb", "16"}
	if code := run(args, &out, &errb); code == 0 || !strings.Contains(errb.String(), "L:a1,b1,c1,d1,a2 does not win") {
		t.Fatalf("a losing move: exit %d: %s", code, errb.String())
	}
	errb.Reset()
	if code := run([]string{"book", "build", "--what", "refutation", "--out", dir}, &out, &errb); code == 0 || !strings.Contains(errb.String(), "--moves names the moves") {
		t.Fatalf("no moves: exit %d: %s", code, errb.String())
	}
}

// TestBookOpenings classifies each class of a small position by its
// replies (the way the openings are classified) and compares with the
// direct classification.
func TestBookOpenings(t *testing.T) {
	values := func(path string) []string {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		f, err := book.Parse(b)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, l := range f.Sections[0].Lines {
			out = append(out, l.Move+" "+l.Outcome())
			if !l.Wins && l.Reply == "" {
				t.Fatalf("%s: a loss without a winning reply", l.Move)
			}
		}
		return out
	}
	dir := t.TempDir()
	var out, errb bytes.Buffer
	for _, what := range []string{"position", "openings"} {
		if code := run([]string{"book", "build", "--what", what, "--moves", bookTestMoves, "--out", dir, "--table-mb", "16"}, &out, &errb); code != 0 {
			t.Fatalf("%s: exit %d: %s", what, code, errb.String())
		}
	}
	direct, byReplies := values(filepath.Join(dir, "position.txt")), values(filepath.Join(dir, "openings.txt"))
	if strings.Join(direct, "\n") != strings.Join(byReplies, "\n") || len(direct) != 247 {
		t.Fatalf("%d lines by search, %d by replies, differing", len(direct), len(byReplies))
	}
}

// TestBookMerge: book merge adds a build output's classes to a copy of the
// committed openings file and refuses a contradiction.
func TestBookMerge(t *testing.T) {
	dir := t.TempDir()
	into := filepath.Join(dir, "openings.txt")
	committed, _ := book.Parse(book.Files()["openings.txt"])
	// The committed file without its last class, which a build gives back
	// (the file classifies every class: nothing would be new).
	sec := committed.Section(nil)
	last := sec.Lines[len(sec.Lines)-1]
	sec.Lines = sec.Lines[:len(sec.Lines)-1]
	if err := os.WriteFile(into, committed.Format(), 0o644); err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, l := range sec.Lines {
		have[l.Move] = true
	}
	line := fmt.Sprintf("%s %d %s %s nodes=1 ms=1\n", last.Move, last.Class, last.Outcome(), last.Reply)
	build := filepath.Join(dir, "build.txt")
	_ = os.WriteFile(build, []byte("position start\n"+line), 0o644)
	var out, errb bytes.Buffer
	if code := run([]string{"book", "merge", "--into", into, build}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	want := fmt.Sprintf("%d classes (%d were there)", len(have)+1, len(have))
	got, _ := os.ReadFile(into)
	if !strings.Contains(out.String(), want) || !strings.Contains(string(got), strings.Fields(line)[0]+" ") || strings.Contains(string(got), "nodes=") {
		t.Fatalf("%s\n%s", out.String(), got)
	}
	first := committed.Section(nil).Lines[0]
	_ = os.WriteFile(build, []byte(fmt.Sprintf("position start\n%s %d loss I:a1,a2,a3,a4,a5\n", first.Move, first.Class)), 0o644)
	if code := run([]string{"book", "merge", "--into", into, build}, &out, &errb); code == 0 {
		t.Fatal("a contradiction merged")
	}
}

// TestBookBuildResume: a build interrupted after 100 classes (its last
// line cut short) takes those from progress.txt and searches the rest;
// --resume=false searches them all.
func TestBookBuildResume(t *testing.T) {
	dir := t.TempDir()
	args := []string{"book", "build", "--what", "position", "--moves", bookTestMoves, "--out", dir, "--table-mb", "16", "--parallel", "2", "-v"}
	var out, errb bytes.Buffer
	if code := run(args, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	whole, err := os.ReadFile(filepath.Join(dir, "position.txt"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := os.ReadFile(filepath.Join(dir, "progress.txt"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(p), "\n")
	cut := strings.Join(lines[:101], "") + lines[101][:10] // header, 100 lines, a torn one
	if err := os.WriteFile(filepath.Join(dir, "progress.txt"), []byte(cut), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		flag, want string
	}{
		{"--resume=true", "100/247 classes known before, 147 to search"},
		{"--resume=false", ""},
	} {
		out.Reset()
		errb.Reset()
		if code := run(append(args, c.flag), &out, &errb); code != 0 {
			t.Fatalf("%s: exit %d: %s", c.flag, code, errb.String())
		}
		if !strings.Contains(out.String(), "247 classes classified, 13 win") {
			t.Fatalf("%s: %s", c.flag, out.String())
		}
		if got := strings.Contains(errb.String(), "classes known before"); got != (c.want != "") || !strings.Contains(errb.String(), c.want) {
			t.Fatalf("%s: log wants %q:\n%.400s", c.flag, c.want, errb.String())
		}
		again, err := os.ReadFile(filepath.Join(dir, "position.txt"))
		if err != nil {
			t.Fatal(err)
		}
		if c.flag == "--resume=true" {
			// The classes taken keep the costs recorded before.
			before, err := book.Parse([]byte(strings.Join(lines[:101], "")))
			if err != nil {
				t.Fatal(err)
			}
			f, err := book.Parse(again)
			if err != nil {
				t.Fatal(err)
			}
			nodes := map[string]int64{}
			for _, l := range f.Sections[0].Lines {
				nodes[l.Move] = l.Nodes
			}
			for _, l := range before.Sections[0].Lines {
				if nodes[l.Move] != l.Nodes {
					t.Fatalf("%s: %d nodes, %d before", l.Move, nodes[l.Move], l.Nodes)
				}
			}
		}
		if !bytes.Equal(bytes.Join(moveValues(t, whole), nil), bytes.Join(moveValues(t, again), nil)) {
			t.Fatalf("%s: the values differ", c.flag)
		}
	}
}

// moveValues are the lines of a position file, one per class, as
// "move class outcome", in the file's order.
func moveValues(t *testing.T, data []byte) [][]byte {
	t.Helper()
	f, err := book.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	for _, l := range f.Sections[0].Lines {
		out = append(out, fmt.Appendf(nil, "%s %d %s\n", l.Move, l.Class, l.Outcome()))
	}
	return out
}

// TestBookBuildLengths: --lengths gives every line its plies (a losing
// move's reply then a fastest win); lines of a progress file without plies
// are searched again; --lengths only goes with --what position, in process.
func TestBookBuildLengths(t *testing.T) {
	dir := t.TempDir()
	base := []string{"book", "build", "--what", "position", "--moves", bookTestMoves, "--out", dir, "--table-mb", "16", "--parallel", "2", "-v"}
	var out, errb bytes.Buffer
	if code := run(base, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	plain, err := os.ReadFile(filepath.Join(dir, "position.txt"))
	if err != nil {
		t.Fatal(err)
	}
	out.Reset()
	errb.Reset()
	if code := run(append(base, "--lengths"), &out, &errb); code != 0 {
		t.Fatalf("--lengths: exit %d: %s", code, errb.String())
	}
	if strings.Contains(errb.String(), "classes known before") {
		t.Fatalf("lines without plies taken from the progress file:\n%.400s", errb.String())
	}
	data, err := os.ReadFile(filepath.Join(dir, "position.txt"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := book.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Sections) != 1 || len(f.Sections[0].Lines) != 247 {
		t.Fatalf("%d sections", len(f.Sections))
	}
	for _, l := range f.Sections[0].Lines {
		if l.Plies == nil || !l.Wins && l.Reply == "" {
			t.Fatalf("line %+v: no plies or no reply", l)
		}
	}
	if !bytes.Equal(bytes.Join(moveValues(t, plain), nil), bytes.Join(moveValues(t, data), nil)) {
		t.Fatal("the values differ with --lengths")
	}
	// The file loads as a book that knows the position's length.
	b, err := book.Load(data)
	if err != nil {
		t.Fatal(err)
	}
	pos, err := book.PositionAfter(strings.Fields(bookTestMoves))
	if err != nil {
		t.Fatal(err)
	}
	if l, ok := b.LengthOf(pos); !ok || l.Plies < 1 || len(l.After) != pos.LegalMoveCount() {
		t.Fatalf("length %+v (%v)", l, ok)
	}
	for _, extra := range [][]string{{"--jobs"}, {"--what", "certificate"}} {
		errb.Reset()
		if code := run(append(append(slices.Clone(base), "--lengths"), extra...), &out, &errb); code == 0 || !strings.Contains(errb.String(), "--lengths") {
			t.Fatalf("%v: exit %d: %s", extra, code, errb.String())
		}
	}
}

// TestBookLowerBound: one winning opening (class 41, the I whose every
// reply lasts 7 plies) gets a reply the first player cannot answer with a
// win within 5 plies, and not within 7 (--plies 7 finds none among the
// classes tried: every reply lasts exactly 7); a losing opening (class 36)
// is skipped; a second run resumes from the file.
func TestBookLowerBound(t *testing.T) {
	dir := t.TempDir()
	runLB := func(args ...string) string {
		t.Helper()
		var out, errb bytes.Buffer
		args = append([]string{"book", "lower-bound", "--out", dir, "--table-mb", "16", "--parallel", "1", "--tries", "1"}, args...)
		if code := run(args, &out, &errb); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errb.String())
		}
		return out.String() + errb.String()
	}
	got := runLB("--classes", "36,41")
	if !strings.Contains(got, "1 winning openings with a reply the first player cannot answer with a win within 5 plies, 0 without") {
		t.Fatalf("first run: %s", got)
	}
	b, err := os.ReadFile(filepath.Join(dir, "lower-bound.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "\nI:b3,c3,d3,e3,f3 F:f1,g1,g2,h2,g3 within=5 no ") {
		t.Fatalf("lower-bound.txt:\n%s", b)
	}
	if got := runLB("--classes", "41"); !strings.Contains(got, "1 done before, 0 to search") {
		t.Fatalf("second run searched again: %s", got)
	}
	// A file of another bound (its header alone: a run killed before its
	// first line) is refused too.
	headerOnly := t.TempDir()
	header := "# Pentominoes 8x8: for each winning first move, a reply after which the first player cannot end the game within 3 plies\n"
	if err := os.WriteFile(filepath.Join(headerOnly, "lower-bound.txt"), []byte(header), 0o644); err != nil {
		t.Fatal(err)
	}
	var hOut, hErr bytes.Buffer
	if code := run([]string{"book", "lower-bound", "--out", headerOnly, "--classes", "41"}, &hOut, &hErr); code == 0 || !strings.Contains(hErr.String(), "is a file of --plies 3") {
		t.Fatalf("--plies 5 into a file of --plies 3: exit %d: %s", code, hErr.String())
	}
	// Another bound into the same file: refused (it claimed the file's
	// 5-ply lines as 7-ply ones, "at least 11 plies").
	var mixed, mixedErr bytes.Buffer
	if code := run([]string{"book", "lower-bound", "--out", dir, "--plies", "7", "--classes", "41"}, &mixed, &mixedErr); code == 0 || !strings.Contains(mixedErr.String(), "is a file of --plies 5") {
		t.Fatalf("--plies 7 into a file of --plies 5: exit %d: %s%s", code, mixed.String(), mixedErr.String())
	}
	// Its lines alone (no header) are enough to tell.
	linesOnly := t.TempDir()
	var kept []string
	for _, l := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(l, "#") {
			kept = append(kept, l)
		}
	}
	if err := os.WriteFile(filepath.Join(linesOnly, "lower-bound.txt"), []byte(strings.Join(kept, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	mixed.Reset()
	mixedErr.Reset()
	if code := run([]string{"book", "lower-bound", "--out", linesOnly, "--plies", "7", "--classes", "41"}, &mixed, &mixedErr); code == 0 || !strings.Contains(mixedErr.String(), "holds the lines of --plies 5") {
		t.Fatalf("--plies 7 into lines of --plies 5: exit %d: %s", code, mixedErr.String())
	}
	dir7 := t.TempDir()
	var out, errb bytes.Buffer
	if code := run([]string{"book", "lower-bound", "--out", dir7, "--table-mb", "16", "--parallel", "1", "--tries", "1", "--plies", "7", "--classes", "41"}, &out, &errb); code != 0 {
		t.Fatalf("--plies 7: exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "0 winning openings with a reply") || !strings.Contains(out.String(), "1 without one found") {
		t.Fatalf("--plies 7: %s", out.String())
	}
}

// TestBookBuildLocksOut: a second build into the same --out is refused
// while one runs (two builds searched the same classes, each appending
// them to progress.txt).
func TestBookBuildLocksOut(t *testing.T) {
	dir := t.TempDir()
	unlock, err := jobs.LockDir(dir) // a build under way
	if err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	args := []string{"book", "build", "--what", "position", "--moves", bookTestMoves, "--out", dir, "--table-mb", "16"}
	if code := run(args, &out, &errb); code == 0 || !strings.Contains(errb.String(), "another build is writing there") {
		t.Fatalf("a second build: exit %d: %s", code, errb.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "progress.txt")); err == nil {
		t.Error("the refused build wrote progress.txt")
	}
	_ = unlock()
}

// TestCommandsRefuseArguments: a word after a command's flags (a file
// meant for --file, a URL meant for --url) is refused instead of being
// ignored with every flag after it; bounds checked before any work.
func TestCommandsRefuseArguments(t *testing.T) {
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"book", "verify", "--sample", "1", "cert.txt"}, `book verify: unexpected argument "cert.txt"`},
		{[]string{"book", "build", "openings", "--classes", "42"}, `book build: unexpected argument "openings"`},
		{[]string{"book", "stats", "x"}, `book stats: unexpected argument "x"`},
		{[]string{"book", "lower-bound", "--out", t.TempDir(), "now"}, `book lower-bound: unexpected argument "now"`},
		{[]string{"healthcheck", "http://127.0.0.1:1/healthz"}, `healthcheck: unexpected argument`},
		{[]string{"teeko", "build", "extra"}, `teeko build: unexpected argument "extra"`},
		{[]string{"version", "x"}, `version: unexpected argument "x"`},
		{[]string{"book", "verify", "--memo-bits", "70"}, "--memo-bits 70: from 10 to 30"},
		{[]string{"book", "lower-bound", "--out", t.TempDir(), "--classes", "0-9999999999"}, "is beyond any position's classes"},
		{[]string{"book", "build", "--what", "openings", "--out", filepath.Join(t.TempDir(), "never"), "--classes", "42,400"}, "class 400: the position has classes 0..295"},
		{[]string{"book", "build", "--what", "positions", "--out", filepath.Join(t.TempDir(), "never")}, `--what "positions"`},
		{[]string{"book", "build", "--what", "position", "--moves", "Q:a1", "--out", filepath.Join(t.TempDir(), "never")}, `--moves: move 1`},
		{[]string{"book", "lower-bound", "--classes", "400", "--out", filepath.Join(t.TempDir(), "never")}, "--classes: 400 is not a class"},
	} {
		var out, errb bytes.Buffer
		if code := run(tc.args, &out, &errb); code == 0 || !strings.Contains(errb.String(), tc.msg) {
			t.Errorf("%v: exit %d, %q; want an error with %q", tc.args, code, errb.String(), tc.msg)
		}
		for i, a := range tc.args {
			if a == "--out" && strings.HasSuffix(tc.args[i+1], "never") {
				if _, err := os.Stat(tc.args[i+1]); err == nil {
					t.Errorf("%v: --out made before the arguments were checked", tc.args)
				}
			}
		}
	}
}

// TestCommandHelp: book and teeko print their usage on -h and exit 0; an
// unknown subcommand is named.
func TestCommandHelp(t *testing.T) {
	for _, args := range [][]string{{"book", "-h"}, {"book", "help"}, {"teeko", "--help"}} {
		var out, errb bytes.Buffer
		if code := run(args, &out, &errb); code != 0 || !strings.Contains(out.String(), "usage:") {
			t.Errorf("%v: exit %d, %q", args, code, out.String())
		}
	}
	var out, errb bytes.Buffer
	if code := run([]string{"book", "nope"}, &out, &errb); code == 0 || !strings.Contains(errb.String(), `unknown subcommand "nope"`) {
		t.Errorf("book nope: exit %d, %q", code, errb.String())
	}
}

// TestExitCode: an interrupted command exits 130 with "interrupted" (a
// certificate build said "not proven", a verify "context canceled"), help
// 0, an error 1 with its message.
func TestExitCode(t *testing.T) {
	for _, tc := range []struct {
		err  error
		code int
		msg  string
	}{
		{nil, 0, ""},
		{flag.ErrHelp, 0, ""},
		{context.Canceled, 130, "gamesolver: interrupted\n"},
		{fmt.Errorf("class 3: %w", context.Canceled), 130, "gamesolver: interrupted\n"},
		{errors.New("no such file"), 1, "gamesolver: no such file\n"},
	} {
		var errb bytes.Buffer
		if code := exitCode(tc.err, &errb); code != tc.code || errb.String() != tc.msg {
			t.Errorf("%v: exit %d, %q; want %d, %q", tc.err, code, errb.String(), tc.code, tc.msg)
		}
	}
}

// TestBookWorkerSaysRedisIsUnreachable: a book worker whose Redis cannot
// be reached says so on stderr (it waited in silence) and stops with its
// context.
func TestBookWorkerSaysRedisIsUnreachable(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	var errb bytes.Buffer
	if err := bookWorker(ctx, []string{"--redis-url", "redis://127.0.0.1:1/0", "--table-mb", "16"}, &errb); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(errb.String(), "WARN") || !strings.Contains(errb.String(), "could not") {
		t.Errorf("stderr: %q", errb.String())
	}
}

// TestBookBuildProgressUnwritable: a build whose progress file cannot be
// written (a full disk: /dev/full here) stops with the error, instead of
// searching on for hours and losing what --resume needs (a review found
// the writes ignored).
func TestBookBuildProgressUnwritable(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	dir := t.TempDir()
	if err := os.Symlink("/dev/full", filepath.Join(dir, "progress.txt")); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	// --resume=false: /dev/full reads as endless zeros.
	args := []string{"book", "build", "--what", "position", "--moves", bookTestMoves, "--out", dir, "--table-mb", "16", "--resume=false"}
	if code := run(args, &out, &errb); code == 0 || !strings.Contains(errb.String(), "progress file") || !strings.Contains(errb.String(), "no space left") {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "position.txt")); err == nil {
		t.Error("position.txt written")
	}
}
