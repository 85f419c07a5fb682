package service

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"math/rand/v2"
	"net"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
	"unicode/utf8"
)

type decodeTarget struct {
	Name string   `json:"name"`
	Tags []string `json:"tags"`
}

// TestDecodeStrictText: the body's text. A byte-order mark is skipped
// (however the reader splits it), invalid UTF-8 and lone surrogate escapes
// are refused with their offset, escaped backslashes and whole surrogate
// pairs pass.
func TestDecodeStrictText(t *testing.T) {
	bom := "\xEF\xBB\xBF"
	tests := []struct {
		name, body string
		want       string // the decoded name, when err is ""
		err        string
	}{
		{"byte-order mark", bom + `{"name":"a"}`, "a", ""},
		{"mark then space", bom + ` {"name":"b"}`, "b", ""},
		{"half a mark", "\xEF\xBB" + `{"name":"a"}`, "", "not valid UTF-8 at byte 1 (0xEF)"},
		{"mark twice", bom + bom + `{}`, "", `malformed JSON at byte 4: invalid character '\ufeff' (U+FEFF) looking for beginning of value`},
		{"mark alone", bom, "", "body is empty"},
		{"surrogate pair", `{"name":"\ud83d\ude00"}`, "\U0001F600", ""},
		{"escaped backslash before u", `{"name":"\\ud800"}`, `\ud800`, ""},
		{"escaped quote then escape", `{"name":"\"\u00e9"}`, `"é`, ""},
		{"high surrogate alone", `{"name":"a\ud800"}`, "", `byte 11: \ud800 is half of a surrogate pair`},
		{"high surrogate alone after a mark and space", bom + ` {"name":"a\ud800"}`, "", `byte 15: \ud800 is half`},
		{"high then high", `{"name":"\ud800\ud800"}`, "", `\ud800 is half`},
		{"low surrogate alone", `{"tags":["x","\uDC01"]}`, "", `byte 15: \udc01 is the second half`},
		{"invalid byte in a key", "{\"na\xc3\":1}", "", "not valid UTF-8 at byte 5 (0xC3)"},
		{"invalid byte after a mark and space", bom + "  {\"name\":\"\xff\"}", "", "not valid UTF-8 at byte 15 (0xFF)"},
		{"Windows-1252 quote", "{\"name\":\x93a\x94}", "", "not valid UTF-8 at byte 9 (0x93)"},
		{"no-break space", "{\"name\":\u00a0\"a\"}", "", `malformed JSON at byte 9: invalid character '\u00a0' (U+00A0) looking for beginning of value`},
		{"curly quote", "{\"name\":\u201ca\u201d}", "", `malformed JSON at byte 9: invalid character '“' (U+201C)`},
		{"syntax error after a mark", bom + `{"name":}`, "", "malformed JSON at byte 12: invalid character '}'"},
	}
	for _, tt := range tests {
		for _, split := range []bool{false, true} {
			var r io.Reader = strings.NewReader(tt.body)
			if split {
				r = iotest.OneByteReader(r)
			}
			var got decodeTarget
			err := DecodeStrict(r, &got)
			switch {
			case tt.err == "" && err != nil:
				t.Errorf("%s (one byte at a time %t): %v", tt.name, split, err)
			case tt.err == "" && got.Name != tt.want:
				t.Errorf("%s (one byte at a time %t): name %q, want %q", tt.name, split, got.Name, tt.want)
			case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
				t.Errorf("%s (one byte at a time %t): error %v, want %q", tt.name, split, err, tt.err)
			}
		}
	}
}

// timeoutErr is what a connection's read returns past its deadline.
type timeoutErr struct{}

func (timeoutErr) Error() string   { return "read tcp 127.0.0.1:8080->127.0.0.1:40414: i/o timeout" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }

var _ net.Error = timeoutErr{}

// TestDecodeStrictReadErrors: a body that stalls past the read timeout is
// ErrBodyTimeout, a connection that fails another way a message without
// the server's addresses.
func TestDecodeStrictReadErrors(t *testing.T) {
	var target decodeTarget
	for _, part := range []string{`{"name":`, `{"name":"a"}`, ``} {
		stalled := io.MultiReader(strings.NewReader(part), iotest.ErrReader(timeoutErr{}))
		if err := DecodeStrict(stalled, &target); !errors.Is(err, ErrBodyTimeout) {
			t.Errorf("body %q then a stall: %v, want ErrBodyTimeout", part, err)
		}
	}
	// Data and the timeout from one read.
	if err := DecodeStrict(iotest.DataErrReader(io.MultiReader(strings.NewReader(`{"name":"a"}`), iotest.ErrReader(timeoutErr{}))), &target); !errors.Is(err, ErrBodyTimeout) {
		t.Errorf("data with the timeout: %v, want ErrBodyTimeout", err)
	}
	reset := &net.OpError{Op: "read", Net: "tcp", Err: errors.New("connection reset by peer"),
		Addr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}}
	err := DecodeStrict(io.MultiReader(strings.NewReader(`{`), iotest.ErrReader(reset)), &target)
	if err == nil || strings.Contains(err.Error(), "127.0.0.1") {
		t.Errorf("reset connection: %v, want a message without addresses", err)
	}
}

// FuzzDecodeStrict: no body panics the decoder, and a body it accepts is
// UTF-8 after its byte-order mark, without a lone surrogate escape.
func FuzzDecodeStrict(f *testing.F) {
	for _, s := range []string{`{"name":"a"}`, "\xEF\xBB\xBF{}", `{"name":"\ud800"}`, `{"name":"\\ud800"}`,
		`{"tags":["\ud83d\ude00"]}`, "{\"name\":\"\xff\"}", `{"name":"\"\u00e9"}`, `{"name":1}`, `[]`, "\xEF\xBB"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var target decodeTarget
		if DecodeStrict(bytes.NewReader(body), &target) != nil {
			return
		}
		text := bytes.TrimPrefix(body, []byte("\xEF\xBB\xBF"))
		if !utf8.Valid(text) {
			t.Fatalf("accepted a body that is not UTF-8: %q", body)
		}
		for _, s := range append([]string{target.Name}, target.Tags...) {
			if strings.ContainsRune(s, utf8.RuneError) && !bytes.Contains(text, []byte("\uFFFD")) && !bytes.Contains(bytes.ToLower(text), []byte(`\ufffd`)) {
				t.Fatalf("accepted a body whose string %q lost a character: %q", s, body)
			}
		}
	})
}

// FuzzIntegralNumbers: integralNumbers keeps valid JSON valid and every
// value the same (as encoding/json reads numbers, float64).
func FuzzIntegralNumbers(f *testing.F) {
	for _, s := range []string{`{"n":8.0}`, `[1e3,-2.5e1,"1.0",{"a\"":0.0e9}]`, `{"n":1e-999999999,"m":-0.0}`, `"\\"`, `[9007199254740993.0, 1.5]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		if !json.Valid([]byte(in)) {
			return
		}
		out := integralNumbers([]byte(in))
		var a, b any
		if err := json.Unmarshal([]byte(in), &a); err != nil {
			return // a number too big for a float64
		}
		if err := json.Unmarshal(out, &b); err != nil {
			t.Fatalf("%s became %s: %v", in, out, err)
		}
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("%s became %s: %v, then %v", in, out, a, b)
		}
	})
}

// TestIntegralNumbers: a number with a fraction or an exponent and an
// integer value is taken where an integer is expected, as JSON Schema's
// integer takes it; others are refused as before, and huge exponents
// cost nothing.
func TestIntegralNumbers(t *testing.T) {
	type body struct {
		N     int     `json:"n"`
		F     float64 `json:"f"`
		Names []string
	}
	for _, tt := range []struct {
		in   string
		want int
		f    float64
		err  string
	}{
		{`{"n":8.0}`, 8, 0, ""},
		{`{"n":1e3}`, 1000, 0, ""},
		{`{"n":-2.50E1}`, -25, 0, ""},
		{`{"n":0.0e999999999}`, 0, 0, ""},
		{`{"n":-0.0}`, 0, 0, ""},
		{`{"n":9007199254740992.0}`, 1 << 53, 0, ""},
		{`{"n":8.5}`, 0, 0, "expected an integer"},
		{`{"n":1e-999999999}`, 0, 0, "expected an integer"},
		{`{"n":1e999999999}`, 0, 0, "n"},
		{`{"n":4503599627370496.5}`, 0, 0, "expected an integer"},
		{`{"n":9007199254740994.0}`, 0, 0, "n"},
		{`{"n":1.00000000000000000000000000000000000000000001}`, 0, 0, "n"},
		{`{"n":2,"f":1.0}`, 2, 1, ""},
		{`{"Names":["8.0","a\"1.0"],"n":3.0}`, 3, 0, ""},
	} {
		var b body
		err := DecodeStrict(strings.NewReader(tt.in), &b)
		switch {
		case tt.err == "" && err != nil:
			t.Errorf("%s: %v", tt.in, err)
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("%s: %+v, %v; want an error with %q", tt.in, b, err, tt.err)
		case tt.err == "" && (b.N != tt.want || b.F != tt.f):
			t.Errorf("%s: %+v; want n %d, f %v", tt.in, b, tt.want, tt.f)
		}
		if strings.Contains(tt.in, "Names") && (len(b.Names) != 2 || b.Names[0] != "8.0" || b.Names[1] != `a"1.0`) {
			t.Errorf("%s: strings changed: %q", tt.in, b.Names)
		}
	}
}

// TestIntegralLiteralExact: integralLiteral against exact rational
// arithmetic on random literals (digits, a point, an exponent).
func TestIntegralLiteralExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	digits := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = "0000123456789"[rng.IntN(13)]
		}
		return string(b)
	}
	for range 200000 {
		lit := digits(1 + rng.IntN(18))
		if rng.IntN(2) == 0 {
			lit += "." + digits(1+rng.IntN(8))
		}
		if rng.IntN(2) == 0 {
			lit += []string{"e", "E", "e+", "e-"}[rng.IntN(4)] + strconv.Itoa(rng.IntN(25))
		}
		if rng.IntN(3) == 0 {
			lit = "-" + lit
		}
		if !bytes.ContainsAny([]byte(lit), ".eE") || len(lit) > 40 {
			continue
		}
		if strings.HasPrefix(strings.TrimPrefix(lit, "-"), "0") && len(strings.TrimPrefix(lit, "-")) > 1 && strings.TrimPrefix(lit, "-")[1] != '.' && strings.TrimPrefix(lit, "-")[1] != 'e' && strings.TrimPrefix(lit, "-")[1] != 'E' {
			continue // a leading zero: not JSON
		}
		r, _ := new(big.Rat).SetString(lit)
		want := r.IsInt() && r.Num().IsInt64() && r.Num().Int64() <= 1<<53 && r.Num().Int64() >= -(1<<53)
		got, ok := integralLiteral([]byte(lit))
		if ok != want || ok && got != r.Num().Int64() {
			t.Fatalf("%s: %d, %v; exact %s", lit, got, ok, r.RatString())
		}
	}
}

// TestDecodeLongNumbersClipped: a number repeated in a fault is clipped,
// saying its length (a 60,000-digit width came back whole, twice, in a
// 120 KB problem).
func TestDecodeLongNumbersClipped(t *testing.T) {
	var dst struct {
		Width  int    `json:"width"`
		Budget *int64 `json:"budget_ms"`
	}
	digits := strings.Repeat("9", 60000)
	for _, body := range []string{`{"width":` + digits + `}`, `{"budget_ms":1.` + digits + `}`, `{"width":"` + digits + `"}`} {
		err := DecodeStrict(strings.NewReader(body), &dst)
		if err == nil || len(err.Error()) > 200 || !strings.Contains(err.Error(), "bytes)") && !strings.Contains(err.Error(), "a string") {
			t.Errorf("%.20s...: %.300v (%d bytes)", body, err, len(fmt.Sprint(err)))
		}
	}
	if err := DecodeStrict(strings.NewReader(`{"width":1e3}`), &dst); err != nil || dst.Width != 1000 {
		t.Errorf("a short number: %v", err)
	}
}

// TestDecodeUnknownFieldsNamedAlike: a body with several unknown fields
// names the same one at every try (the first in name order; a review
// found the field of the problem chosen at random among them).
func TestDecodeUnknownFieldsNamedAlike(t *testing.T) {
	var dst struct {
		Name  string            `json:"name"`
		Inner map[string]string `json:"inner"`
	}
	for body, want := range map[string]string{
		`{"zeta":1,"alpha":2,"mid":3,"name":"x"}`:      "alpha",
		`{"name":"x","inner":{"b":"1"},"yy":1,"xx":2}`: "xx",
	} {
		for range 20 {
			err := DecodeStrict(strings.NewReader(body), &dst)
			var fe *DecodeFieldError
			if !errors.As(err, &fe) || fe.Field != want {
				t.Fatalf("%s: %v, want the field %s", body, err, want)
			}
		}
	}
}

// TestDecodeNestingBounded: a body nested deeper than maxJSONDepth is
// refused, naming where, under a field the strict decode does not descend
// (a job's request) as elsewhere; one within it is read (a security
// review's 10,000-deep body cost 0.2-0.4 s of CPU a request).
func TestDecodeNestingBounded(t *testing.T) {
	var dst struct {
		Type    string          `json:"type"`
		Request json.RawMessage `json:"request"`
	}
	nested := func(depth int) string {
		return `{"type":"x","request":` + strings.Repeat(`{"a":`, depth) + "1" + strings.Repeat("}", depth) + "}"
	}
	if err := DecodeStrict(strings.NewReader(nested(maxJSONDepth-1)), &dst); err != nil {
		t.Errorf("%d deep: %v", maxJSONDepth, err)
	}
	for _, body := range []string{nested(maxJSONDepth), nested(9_990), `{"type":"x","request":` + strings.Repeat("[", 5000) + strings.Repeat("]", 5000) + "}"} {
		err := DecodeStrict(strings.NewReader(body), &dst)
		var fe *DecodeFieldError
		if !errors.As(err, &fe) || !strings.HasPrefix(fe.Field, "request") || !strings.Contains(fe.Msg, "nested deeper") {
			t.Errorf("%.40s... (%d bytes): %v", body, len(body), err)
		}
	}
}

// TestDecodeListIndex: an element of a list that is null or of the wrong
// type is named by its 0-based index (the field's path beside it), at any
// depth and after the BOM or white space; the message counts from 1.
// DecodeRequest (a job's request) gives it as the field error's Index.
func TestDecodeListIndex(t *testing.T) {
	type nested struct {
		Hands struct {
			First []string `json:"first"`
		} `json:"hands"`
		Tags   []string   `json:"tags"`
		Grid   [][]string `json:"grid"`
		Width  int        `json:"width"`
		Pieces PieceNames `json:"pieces"` // a union type: its own decoder
	}
	for _, tc := range []struct {
		body, field, msg string
		index            int // -1: none
	}{
		{`{"tags":["a",null]}`, "tags", "element 2 is null", 1},
		{`{"tags":["a","b",3]}`, "tags", "element 3: expected a string, got a number", 2},
		{`{"tags":[true]}`, "tags", "element 1: expected a string, got a bool", 0},
		{"\xEF\xBB\xBF  {\"width\":1, \"tags\" : [ \"a\" , {\"x\":[1]} ]}", "tags", "element 2: expected a string, got an object", 1},
		{`{"tags":["a",["b"]]}`, "tags", "element 2: expected a string, got an array", 1},
		{`{"hands":{"first":["F","I",2]}}`, "hands.first", "element 3", 2},
		{`{"grid":[["a"],["b",4]]}`, "grid", "expected a string", -1}, // an element of an element: no one index says where
		{`{"grid":[["a"],["b",null]]}`, "grid", "is null", -1},
		{`{"tags":"a"}`, "tags", "expected an array", -1},
		{`{"pieces":["F",null,7]}`, "pieces", "element 2 is null, not a string", 1},
		{`{"pieces":["F","I",7]}`, "pieces", "element 3 is a number, not a string", 2},
		{`{"tags":["a"],"pieces":[["F"]]}`, "pieces", "element 1 is an array, not a string", 0},
		{`{"pieces":true}`, "pieces", "got a boolean", -1},
		{`{"width":"8"}`, "width", "expected an integer", -1},
	} {
		var v nested
		err := DecodeStrict(strings.NewReader(tc.body), &v)
		var fe *DecodeFieldError
		if !errors.As(err, &fe) {
			t.Errorf("%s: %v, not a field's error", tc.body, err)
			continue
		}
		got := -1
		if fe.Index != nil {
			got = *fe.Index
		}
		if fe.Field != tc.field || got != tc.index || !strings.Contains(fe.Msg, tc.msg) {
			t.Errorf("%s: field %q index %d %q; want %q index %d, a message with %q", tc.body, fe.Field, got, fe.Msg, tc.field, tc.index, tc.msg)
		}
	}
	var q PolyominoQuery
	err := DecodeRequest(json.RawMessage(`{"moves":["L:a1,a2,a3,a4,b4",5]}`), &q)
	var se *Error
	if !errors.As(err, &se) || len(se.Fields) != 1 || se.Fields[0].Field != "request.moves" || se.Fields[0].Index == nil || *se.Fields[0].Index != 1 {
		t.Errorf("a job's request: %v %+v", err, se)
	}
}

// BenchmarkDecodeLongKey: a 73 KB job submission whose request holds
// 3,000 members under a 40 KB key. walkJSON built every member's path
// (the key each time): about 100 ms a decode; now only the paths of the
// objects and arrays it opens (BENCHMARKS "Request decoding").
func BenchmarkDecodeLongKey(b *testing.B) {
	var dst struct {
		Type    string          `json:"type"`
		Request json.RawMessage `json:"request"`
	}
	var body strings.Builder
	body.WriteString(`{"type":"x","request":{"` + strings.Repeat("k", 40_000) + `":{`)
	for i := range 3000 {
		if i > 0 {
			body.WriteString(",")
		}
		fmt.Fprintf(&body, `"m%d":1`, i)
	}
	body.WriteString("}}}")
	raw := body.String()
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		if err := DecodeStrict(strings.NewReader(raw), &dst); err != nil {
			b.Fatal(err)
		}
	}
}
