package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/gamesolver/gamesolver/service"
)

// decodeJSON reads the body into dst strictly: one JSON object, no unknown
// field, every field of the right type, nothing after it. On failure it
// answers with a problem naming the field and what was expected, and
// returns false.
func decodeJSON(c *gin.Context, dst any) bool {
	err := strictDecode(c.Request.Body, dst)
	if err == nil {
		return true
	}
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		writeProblem(c, newProblem(c, "body-too-large", fmt.Sprintf("the request body exceeds %d bytes", tooLarge.Limit)))
		return false
	}
	var fe *fieldError
	if errors.As(err, &fe) {
		fail(c, service.Invalid(fe.field, nil, "%s", fe.msg))
		return false
	}
	writeProblem(c, newProblem(c, "malformed-json", err.Error()))
	return false
}

// fieldError is a decoding error that belongs to one field.
type fieldError struct{ field, msg string }

func (e *fieldError) Error() string { return e.field + ": " + e.msg }

func strictDecode(r io.Reader, dst any) error {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		return explainDecodeError(err, dst)
	}
	var extra json.RawMessage
	switch err := dec.Decode(&extra); {
	case errors.Is(err, io.EOF):
		return nil
	case err == nil:
		return errors.New("unexpected data after the JSON object: send exactly one object")
	default:
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return err
		}
		return errors.New("unexpected data after the JSON object: send exactly one object")
	}
}

func explainDecodeError(err error, dst any) error {
	var (
		syntax    *json.SyntaxError
		typeErr   *json.UnmarshalTypeError
		tooLarge  *http.MaxBytesError
		invalidUE *json.InvalidUnmarshalError
	)
	switch {
	case errors.As(err, &tooLarge):
		return err
	case errors.Is(err, io.EOF):
		return errors.New("the request body is empty: expected a JSON object")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return errors.New("the JSON ends too early: an object, array or string is not closed")
	case errors.As(err, &syntax):
		return fmt.Errorf("malformed JSON at byte %d: %s", syntax.Offset, strings.TrimPrefix(syntax.Error(), "json: "))
	case errors.As(err, &typeErr):
		if typeErr.Field == "" {
			return fmt.Errorf("the request body must be a JSON object, not %s", article(typeErr.Value))
		}
		return &fieldError{field: typeErr.Field, msg: fmt.Sprintf("expected %s, got %s", jsonKind(typeErr.Type), article(typeErr.Value))}
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		name := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		return &fieldError{field: name, msg: fmt.Sprintf("unknown field %q; known fields: %s", name, strings.Join(knownFields(dst), ", "))}
	case errors.As(err, &invalidUE):
		panic(err) // a programming error, not the client's
	}
	return fmt.Errorf("malformed JSON: %s", strings.TrimPrefix(err.Error(), "json: "))
}

// jsonKind names the JSON type a Go type is decoded from.
func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
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
func article(v string) string {
	if v == "" {
		return "a value"
	}
	if strings.ContainsAny(v[:1], "aeiou") {
		return "an " + v
	}
	return "a " + v
}

// knownFields lists the JSON names of a struct's fields, for messages about
// unknown fields.
func knownFields(dst any) []string {
	t := reflect.TypeOf(dst)
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.Kind() != reflect.Struct {
		return nil
	}
	var names []string
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch name {
		case "-":
			continue
		case "":
			name = f.Name
		}
		names = append(names, name)
	}
	return names
}

// jsonRender writes v as JSON without HTML escaping (board pictures use
// characters such as '<' in no case, but notes may).
func jsonRender(w io.Writer, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}
