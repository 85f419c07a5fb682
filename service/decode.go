package service

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ErrBodyTimeout is DecodeStrict's error when the body did not arrive
// within the server's read timeout (a client that stalls mid-body).
var ErrBodyTimeout = errors.New("the request body did not arrive in time: send it whole, at once")

// errBodyRead is DecodeStrict's error when the connection failed while
// the body was read; the reader's own message would show the server's
// addresses.
var errBodyRead = errors.New("the request body could not be read: the connection failed")

// utf8BOM is the byte-order mark some editors write first; RFC 8259 lets
// a parser ignore it, and DecodeStrict does.
var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// DecodeFieldError is a decoding error that belongs to one field (a dotted
// path such as "request.width").
type DecodeFieldError struct {
	Field, Msg string
	// Index: the 0-based position of the element at fault when the field
	// is a list (a null in it, or an element of the wrong type); nil
	// otherwise.
	Index *int
}

func (e *DecodeFieldError) Error() string { return e.Field + ": " + e.Msg }

// Invalid is e as the request's fault on field, with message msg and
// e's index.
func (e *DecodeFieldError) Invalid(field, msg string) *Error {
	err := Invalid(field, nil, "%s", msg)
	err.Fields[0].Index = e.Index
	return err
}

// DecodeStrict reads one JSON object from r into dst strictly: no unknown
// field, field names in their exact case (encoding/json alone would take
// "Rules" for "rules"), every field of the right type, nothing after it.
// A null value stands for an absent field (as encoding/json takes it:
// clients that write null for "not set" are served). A field's fault is a *DecodeFieldError; a body over its limit
// is the reader's *http.MaxBytesError; a body that stalled past the read
// timeout is ErrBodyTimeout; anything else is an error whose message says
// what is wrong with the JSON, positions counted in bytes from 1. The body
// must be UTF-8 (encoding/json alone would turn invalid bytes and lone
// surrogate escapes into U+FFFD and accept them); a leading byte-order
// mark is skipped. r must be bounded (the server's body limit): it is read
// whole first, so that a body that stalls anywhere is a timeout.
func DecodeStrict(r io.Reader, dst any) error {
	return decodeStrict(r, dst, true)
}

// decodeStrict is DecodeStrict; without nulls, a null in a list is taken
// as encoding/json takes it (a job's request or unit stored by a version
// that accepted it: the body that made it was checked when it came).
func decodeStrict(r io.Reader, dst any, nulls bool) error {
	body, err := io.ReadAll(r)
	if err != nil {
		return readError(err)
	}
	skip := 0
	if bytes.HasPrefix(body, utf8BOM) {
		skip = len(utf8BOM)
	}
	text := body[skip:]
	if err := checkUTF8(text, skip); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(text))
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return explainDecodeError(err, dst, text, skip)
	}
	var extra json.RawMessage
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return errors.New("unexpected data after the JSON object: send exactly one object")
	}
	// raw starts after the text's leading white space.
	if err := checkSurrogates(raw, skip+len(text)-len(bytes.TrimLeft(text, " \t\r\n"))); err != nil {
		return err
	}
	if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] != '{' {
		return fmt.Errorf("the request body must be a JSON object, not %s", jsonValueKind(t))
	}
	raw = integralNumbers(raw)
	strict := json.NewDecoder(bytes.NewReader(raw))
	strict.DisallowUnknownFields()
	if err := strict.Decode(dst); err != nil {
		if strings.HasPrefix(err.Error(), "json: unknown field ") {
			// encoding/json names the key without its path: exactNames
			// finds it with its path and the fields of its own object.
			if perr := exactNames(raw, reflect.TypeOf(dst), ""); perr != nil {
				return perr
			}
		}
		var typeErr *json.UnmarshalTypeError
		explained := explainDecodeError(err, dst, nil, 0)
		if fe, ok := explained.(*DecodeFieldError); ok && errors.As(err, &typeErr) {
			if fe.Index = listIndexAt(raw, typeErr.Offset, fe.Field); fe.Index != nil {
				fe.Msg = fmt.Sprintf("element %d: %s", *fe.Index+1, fe.Msg)
			} else if typeErr.Value == notAllStrings {
				// a union type's list (TypeError): its decoder cannot say
				// where, the body can
				if i, kind := firstNonString(raw, fe.Field); i != nil {
					fe.Index = i
					fe.Msg = fmt.Sprintf("element %d is %s, not a string: %s", *i+1, kind, strings.TrimSuffix(fe.Msg, ", got an "+notAllStrings))
				}
			}
		}
		return explained
	}
	if err := checkKeysAndNulls(raw, nulls); err != nil {
		return err
	}
	return exactNames(raw, reflect.TypeOf(dst), "")
}

// integralNumbers writes the numbers of raw (valid JSON) that have a
// fraction or an exponent and an integer value of at most 2^53 in
// magnitude (8.0, 1e3, -2.50e1) as integers: JSON Schema's integer takes
// them, and a client whose numbers are floats (Python's json.dumps(8.0))
// sends them. Other numbers stay as they are (8.5 is no integer, and
// encoding/json says so for an integer field).
func integralNumbers(raw []byte) []byte {
	var out []byte // nil until a number is rewritten
	inString, escaped := false, false
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			if out != nil {
				out = append(out, c)
			}
			continue
		case c == '"':
			inString = true
		case c == '-' || c >= '0' && c <= '9':
			j := i + 1
			for j < len(raw) && strings.IndexByte("0123456789.eE+-", raw[j]) >= 0 {
				j++
			}
			lit := raw[i:j]
			if n, ok := integralLiteral(lit); ok {
				if out == nil {
					out = append(make([]byte, 0, len(raw)), raw[:i]...)
				}
				out = strconv.AppendInt(out, n, 10)
				i = j - 1
				continue
			}
			if out != nil {
				out = append(out, lit...)
			}
			i = j - 1
			continue
		}
		if out != nil {
			out = append(out, c)
		}
	}
	if out == nil {
		return raw
	}
	return out
}

// integralLiteral is the integer value of a number literal with a
// fraction or an exponent, exactly, when it has one of at most 2^53 in
// magnitude (literals longer than 40 bytes are left alone).
func integralLiteral(lit []byte) (int64, bool) {
	if len(lit) > 40 || !bytes.ContainsAny(lit, ".eE") {
		return 0, false
	}
	// Read as text (a JSON number, valid: raw parsed): its digits, and
	// where the decimal point falls among them. (strconv.ParseFloat takes
	// microseconds on subnormals such as 1e-320, a 64 KB body of them
	// hundreds of milliseconds; big.Rat would compute 10 to the exponent.)
	neg := lit[0] == '-'
	if neg {
		lit = lit[1:]
	}
	mantissa, expText, hasExp := bytes.Cut(bytes.ToLower(lit), []byte("e"))
	whole, frac, _ := bytes.Cut(mantissa, []byte("."))
	exp := 0
	if hasExp {
		e, err := strconv.Atoi(strings.TrimPrefix(string(expText), "+"))
		if err != nil || e > 1000 || e < -1000 {
			// Beyond any integer of 2^53 unless the digits are all zero.
			e = 1001
		}
		exp = e
	}
	digits := append(append([]byte(nil), whole...), frac...)
	point := len(whole) + exp // digits before the point
	for len(digits) > 0 && digits[0] == '0' {
		digits, point = digits[1:], point-1
	}
	if len(digits) == 0 {
		return 0, true // zero, whatever the exponent
	}
	if exp == 1001 || point > 16 || point <= 0 {
		return 0, false // at least 10^16, or less than 1
	}
	if point < len(digits) {
		if strings.Trim(string(digits[point:]), "0") != "" {
			return 0, false // a fraction
		}
		digits = digits[:point]
	}
	for len(digits) < point {
		digits = append(digits, '0')
	}
	n, err := strconv.ParseInt(string(digits), 10, 64)
	if err != nil || n > 1<<53 {
		return 0, false
	}
	if neg {
		n = -n
	}
	return n, true
}

// jsonValue is a value walkJSON meets: its first token (a delimiter for
// an object or array), where it stands, and the input offset after that
// token.
type jsonValue struct {
	tok json.Token
	// path: the dotted path of the list the value is an element of
	// (inList, at index); a list in a list is named by the outer list's
	// path and "[]". Empty for an object's member: its path is built only
	// for an object or array it opens (a member's path for every value
	// cost a 73 KB body of 3,000 members under a 40 KB key 102 ms:
	// BenchmarkDecodeLongKey).
	path   string
	inList bool
	index  int
	offset int64
}

// maxJSONDepth bounds the nesting of a request's objects and arrays (no
// field nests more than four deep): walkJSON builds the path of each
// object and array it opens, so a body nested 10,000 deep (encoding/json's
// own bound) cost quadratic time,
// 0.2-0.4 s of CPU a 60 KB request (a security review; POST /v1/jobs's
// request is a json.RawMessage the strict decode does not descend).
const maxJSONDepth = 64

// walkJSON reads raw (well-formed JSON) and calls key (when not nil) for
// each object key, with its object's path and whether the object gave it
// already, and value for each value, in order, until one returns an error
// (which it returns) or false (stop: nil). An object or array nested
// deeper than maxJSONDepth ends it with a DecodeFieldError.
func walkJSON(raw json.RawMessage, key func(path, k string, again bool) error, value func(v jsonValue) (bool, error)) error {
	type frame struct {
		object  bool
		keys    map[string]bool
		path    string // of the object or array itself
		key     string // the object's key whose value comes next
		wantKey bool
		index   int // an array's: of the value that comes next
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err != nil {
			return nil // well-formed already checked; io.EOF ends it
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if top != nil && top.object && top.wantKey {
			if k, ok := tok.(string); ok {
				if key != nil {
					if err := key(top.path, k, top.keys[k]); err != nil {
						return err
					}
				}
				top.keys[k] = true
				top.key, top.wantKey = k, false
				continue
			}
		}
		v := jsonValue{tok: tok, offset: dec.InputOffset()}
		if top != nil && !top.object {
			v.path, v.inList, v.index = top.path, true, top.index
		}
		if tok != json.Delim('}') && tok != json.Delim(']') {
			if more, err := value(v); err != nil || !more {
				return err
			}
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			path := v.path
			switch {
			case top != nil && top.object:
				path = join(top.path, top.key)
			case v.inList && tok == json.Delim('['):
				path += "[]"
			}
			if len(stack) >= maxJSONDepth {
				return &DecodeFieldError{Field: strings.ReplaceAll(path, "[]", ""), Msg: fmt.Sprintf("nested deeper than %d objects and arrays: no field of a request nests more than a few", maxJSONDepth)}
			}
			stack = append(stack, &frame{object: tok == json.Delim('{'), keys: map[string]bool{}, path: path, wantKey: true})
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
		}
		// A value ended (a scalar, or the object or array just closed).
		if len(stack) > 0 {
			if parent := stack[len(stack)-1]; parent.object {
				parent.wantKey = true
			} else {
				parent.index++
			}
		}
	}
}

// checkKeysAndNulls reports, at any depth, a key given twice in one
// object (encoding/json keeps the last silently: {"game":"a","game":"b"}
// would be game b) and a null in an array (encoding/json decodes it as the
// element type's zero: [null] as squares would be square 0, which the
// client never sent; no list of a request holds null).
func checkKeysAndNulls(raw json.RawMessage, nulls bool) error {
	return walkJSON(raw, func(path, k string, again bool) error {
		if again {
			return &DecodeFieldError{Field: join(strings.ReplaceAll(path, "[]", ""), k), Msg: fmt.Sprintf("%q is given twice in one object", k)}
		}
		return nil
	}, func(v jsonValue) (bool, error) {
		if v.tok != nil || !v.inList || !nulls {
			return true, nil
		}
		e := &DecodeFieldError{Field: v.path, Msg: fmt.Sprintf("element %d is null: a list takes no null (leave the element out)", v.index+1)}
		if strings.Contains(v.path, "[]") {
			e.Field = strings.ReplaceAll(v.path, "[]", "") // a list in a list: no one index says where
		} else {
			i := v.index
			e.Index = &i
		}
		return false, e
	})
}

// listIndexAt is the 0-based index of the element of the list field
// (dotted path, as UnmarshalTypeError names it) where encoding/json
// reports an element of the wrong type, at byte offset of raw (valid
// JSON): after a scalar element, or after the opening of an object or
// array element; nil when no element of that list is there (a list in a
// list: no one index says where).
func listIndexAt(raw json.RawMessage, offset int64, field string) *int {
	var at *int
	_ = walkJSON(raw, nil, func(v jsonValue) (bool, error) {
		if v.offset > offset {
			return false, nil
		}
		if v.offset == offset && v.inList && v.path == field {
			i := v.index
			at = &i
			return false, nil
		}
		return true, nil
	})
	return at
}

// firstNonString is the 0-based index of the first element of the list
// field (dotted path) of raw (valid JSON) that is not a string, and what
// it is; nil when there is none.
func firstNonString(raw json.RawMessage, field string) (*int, string) {
	var at *int
	var kind string
	_ = walkJSON(raw, nil, func(v jsonValue) (bool, error) {
		if !v.inList || v.path != field {
			return true, nil
		}
		switch tok := v.tok.(type) {
		case string:
			return true, nil
		case json.Delim:
			kind = map[json.Delim]string{'{': "an object", '[': "an array"}[tok]
		case bool:
			kind = "a boolean"
		case nil:
			kind = "null"
		default:
			kind = "a number"
		}
		i := v.index
		at = &i
		return false, nil
	})
	return at, kind
}

// exactNames checks that every object key of raw names a field of t (a
// struct, or a pointer, slice or map of one) in its exact case, at any
// depth; path is the dotted name of raw.
func exactNames(raw json.RawMessage, t reflect.Type, path string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		var items []json.RawMessage
		if json.Unmarshal(raw, &items) != nil {
			return nil
		}
		for _, it := range items {
			if err := exactNames(it, t.Elem(), path); err != nil {
				return err
			}
		}
	case reflect.Map:
		var m map[string]json.RawMessage
		if json.Unmarshal(raw, &m) != nil {
			return nil
		}
		for _, k := range slices.Sorted(maps.Keys(m)) { // the same fault named at every try
			if err := exactNames(m[k], t.Elem(), join(path, k)); err != nil {
				return err
			}
		}
	case reflect.Struct:
		if t == reflect.TypeOf(json.RawMessage{}) {
			return nil
		}
		var m map[string]json.RawMessage
		if json.Unmarshal(raw, &m) != nil {
			return nil
		}
		fields := jsonFields(t)
		for _, k := range slices.Sorted(maps.Keys(m)) { // the same fault named at every try
			v := m[k]
			i := slices.IndexFunc(fields, func(f jsonField) bool { return f.name == k })
			if i < 0 {
				return &DecodeFieldError{Field: join(path, k), Msg: unknownField(k, t)}
			}
			if err := exactNames(v, fields[i].typ, join(path, k)); err != nil {
				return err
			}
		}
	}
	return nil
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

func unknownField(name string, t reflect.Type) string {
	known := knownFields(t)
	for _, k := range known {
		if strings.EqualFold(k, name) {
			return fmt.Sprintf("unknown field %q: field names are case-sensitive, did you mean %q?", name, k)
		}
	}
	return fmt.Sprintf("unknown field %q; known fields: %s", name, strings.Join(known, ", "))
}

// jsonField is a field encoding/json decodes: its JSON name and type.
type jsonField struct {
	name string
	typ  reflect.Type
}

// jsonFields lists the fields of struct t (pointers followed) that
// encoding/json decodes, in order, those of embedded structs promoted;
// none for a type that is not a struct.
func jsonFields(t reflect.Type) []jsonField {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.Kind() != reflect.Struct {
		return nil
	}
	var out []jsonField
	for i := range t.NumField() {
		f := t.Field(i)
		if et := embedded(f); et != nil {
			out = append(out, jsonFields(et)...)
		} else if name, ok := jsonName(f); ok {
			out = append(out, jsonField{name, f.Type})
		}
	}
	return out
}

// embedded is the struct type of an embedded field whose fields
// encoding/json promotes, nil for any other field.
func embedded(f reflect.StructField) reflect.Type {
	if !f.Anonymous || f.Tag.Get("json") != "" {
		return nil
	}
	t := f.Type
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	return t
}

func jsonName(f reflect.StructField) (string, bool) {
	if !f.IsExported() {
		return "", false
	}
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	switch name {
	case "-":
		return "", false
	case "":
		name = f.Name
	}
	return name, true
}

// knownFields lists the JSON names of a struct's fields, for messages about
// unknown fields.
func knownFields(t reflect.Type) []string {
	var names []string
	for _, f := range jsonFields(t) {
		names = append(names, f.name)
	}
	return names
}

// notAllStrings is TypeError's name for an array that is not a list of
// strings (decodeStrict finds the element at fault).
const notAllStrings = "array with an element that is not a string"

// TypeError is the error of a union type's UnmarshalJSON (a field of
// several JSON forms, named by its JSONKind) for a value b of none of its
// forms: the decoder's message names the field, what it takes and what b
// is.
func TypeError(b []byte, t reflect.Type) error {
	value := map[byte]string{'"': "string", '{': "object", '[': notAllStrings, 't': "boolean", 'f': "boolean", 'n': "null"}[b[0]]
	if value == "" {
		value = "number"
	}
	return &json.UnmarshalTypeError{Value: value, Type: t}
}

// jsonValueKind names the kind of a JSON value by its first byte.
func jsonValueKind(v []byte) string {
	if len(v) == 0 {
		return "nothing"
	}
	switch v[0] {
	case 'n':
		return "null"
	case 't', 'f':
		return "a boolean"
	case '"':
		return "a string"
	case '[':
		return "an array"
	}
	return "a number"
}

// readError is DecodeStrict's error for a body that could not be read:
// the reader's *http.MaxBytesError, ErrBodyTimeout, or a message that
// does not show the connection's addresses.
func readError(err error) error {
	var (
		tooLarge *http.MaxBytesError
		netErr   net.Error
	)
	switch {
	case errors.As(err, &tooLarge):
		return err
	case errors.As(err, &netErr) && netErr.Timeout():
		return ErrBodyTimeout
	}
	return errBodyRead
}

// explainDecodeError turns a decoding error into words; text is the JSON
// text decoded (nil when unknown), which starts skip bytes into the body.
func explainDecodeError(err error, dst any, text []byte, skip int) error {
	var (
		syntax    *json.SyntaxError
		typeErr   *json.UnmarshalTypeError
		invalidUE *json.InvalidUnmarshalError
	)
	switch {
	case errors.Is(err, io.EOF):
		return errors.New("the request body is empty: expected a JSON object")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return errors.New("the JSON ends too early: an object, array or string is not closed")
	case errors.As(err, &syntax):
		msg := strings.TrimPrefix(syntax.Error(), "json: ")
		// encoding/json shows the byte at fault as the character of its
		// value ('Â' for the first byte of a no-break space): name the
		// character the text has there.
		if i := int(syntax.Offset) - 1; i >= 0 && i < len(text) && text[i] >= utf8.RuneSelf {
			if q, ok := strings.CutPrefix(msg, "invalid character '"); ok {
				if _, rest, ok := strings.Cut(q, "'"); ok {
					r, _ := utf8.DecodeRune(text[i:])
					msg = fmt.Sprintf("invalid character %q (U+%04X)%s", r, r, rest)
				}
			}
		}
		return fmt.Errorf("malformed JSON at byte %d: %s", syntax.Offset+int64(skip), msg)
	case errors.As(err, &typeErr):
		if typeErr.Field == "" {
			return fmt.Errorf("the request body must be a JSON object, not %s", article(typeErr.Value))
		}
		kind := jsonKind(typeErr.Type)
		// An integer literal an integer field cannot hold: "number 1e3"
		// is no integer, "number 9223372036854775808" is one too large.
		if n, ok := strings.CutPrefix(typeErr.Value, "number "); ok && strings.Contains(kind, "integer") &&
			n != "" && n != "-" && strings.Trim(strings.TrimPrefix(n, "-"), "0123456789") == "" {
			return &DecodeFieldError{Field: typeErr.Field, Msg: fmt.Sprintf("%s is out of range for %s", clipLiteral(n), kind)}
		}
		return &DecodeFieldError{Field: typeErr.Field, Msg: fmt.Sprintf("expected %s, got %s", kind, article(clipLiteral(typeErr.Value)))}
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		name := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		return &DecodeFieldError{Field: name, Msg: unknownField(name, reflect.TypeOf(dst))}
	case errors.As(err, &invalidUE):
		panic(err) // a programming error, not the client's
	}
	return fmt.Errorf("malformed JSON: %s", strings.TrimPrefix(err.Error(), "json: "))
}

// checkUTF8 refuses a body text that is not UTF-8; it starts skip bytes
// into the body.
func checkUTF8(text []byte, skip int) error {
	if utf8.Valid(text) {
		return nil
	}
	i := 0
	for i < len(text) {
		r, n := utf8.DecodeRune(text[i:])
		if r == utf8.RuneError && n <= 1 {
			break
		}
		i += n
	}
	return fmt.Errorf("the body is not valid UTF-8 at byte %d (0x%02X): JSON bodies are UTF-8", skip+i+1, text[i])
}

// checkSurrogates refuses a well-formed JSON value whose strings escape
// half of a surrogate pair (\ud800 alone names no character); it starts
// at byte base+1 of the body.
func checkSurrogates(raw []byte, base int) error {
	inString := false
	for i := 0; i < len(raw); i++ {
		switch c := raw[i]; {
		case c == '"':
			inString = !inString
		case c == '\\' && inString && i+1 < len(raw):
			if raw[i+1] != 'u' {
				i++ // an escaped character, perhaps a quote
				continue
			}
			u, _ := hex4(raw[i+2:]) // well-formed: four digits follow
			switch {
			case u >= 0xD800 && u < 0xDC00:
				next, ok := uint32(0), len(raw) > i+7 && raw[i+6] == '\\' && raw[i+7] == 'u'
				if ok {
					next, ok = hex4(raw[i+8:])
				}
				if !ok || next < 0xDC00 || next >= 0xE000 {
					return fmt.Errorf("malformed JSON at byte %d: \\u%04x is half of a surrogate pair, without its second half (strings must be valid Unicode)", base+i+1, u)
				}
				i += 11
			case u >= 0xDC00 && u < 0xE000:
				return fmt.Errorf("malformed JSON at byte %d: \\u%04x is the second half of a surrogate pair, without its first (strings must be valid Unicode)", base+i+1, u)
			default:
				i += 5
			}
		}
	}
	return nil
}

// hex4 reads the four hexadecimal digits that start b.
func hex4(b []byte) (uint32, bool) {
	if len(b) < 4 {
		return 0, false
	}
	u, err := strconv.ParseUint(string(b[:4]), 16, 16)
	return uint32(u), err == nil
}

// jsonKind names the JSON type a Go type is decoded from.
func jsonKind(t reflect.Type) string {
	if k, ok := reflect.New(t).Elem().Interface().(interface{ JSONKind() string }); ok {
		return k.JSONKind() // a field of its own syntax
	}
	switch t.Kind() {
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "an integer"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a non-negative integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Slice, reflect.Array:
		return "an array of " + strings.TrimPrefix(strings.TrimPrefix(jsonKind(t.Elem()), "a "), "an ") + "s"
	case reflect.Map, reflect.Struct:
		return "an object"
	case reflect.Pointer:
		return jsonKind(t.Elem())
	}
	return "a value"
}

// article turns the JSON value kind encoding/json reports ("number 1.5",
// "string", "array") into words.
// clipLiteral shortens a literal of the request repeated unquoted in a
// message (a number: problems clip only quoted strings), saying how long
// it was: a number of 60,000 digits came back twice in a 120 KB problem.
func clipLiteral(v string) string {
	const keep = 40
	if len(v) <= keep+8 {
		return v
	}
	return fmt.Sprintf("%s… (%d bytes)", v[:keep], len(v))
}

func article(v string) string {
	if v == "" {
		return "a value"
	}
	if strings.ContainsAny(v[:1], "aeiou") {
		return "an " + v
	}
	return "a " + v
}

// DecodeRequest decodes a job's request (or a unit) with DecodeStrict,
// nulls in lists aside (the request came in a body DecodeStrict checked,
// or was stored by an earlier version); a fault is an Invalid error on the
// field "request.<name>".
func DecodeRequest(raw json.RawMessage, v any) error {
	err := decodeStrict(bytes.NewReader(raw), v, false)
	if err == nil {
		return nil
	}
	var fe *DecodeFieldError
	if errors.As(err, &fe) {
		return fe.Invalid("request."+fe.Field, fmt.Sprintf("request.%s: %s", fe.Field, fe.Msg))
	}
	return Invalid("request", err, "request: %v", err)
}
