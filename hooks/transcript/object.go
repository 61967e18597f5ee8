package transcript

import (
	"encoding/json"
	"strconv"
)

// DecodeObject walks raw, one JSON object and nothing after it but space,
// with the transcript's one-pass parser, for a decoder outside this package
// that mirrors json.Unmarshal into a struct without its reflection (the
// hook payload, hooks.decodePayloadFast): member is called with each key
// (one without escapes) and a Value at the key's value, which member must
// decode or skip. It returns false when the parser or member gives up: bad
// syntax, an escaped key, nesting deeper than the parser goes, or whatever
// member refuses; the caller then leaves the bytes to encoding/json.
func DecodeObject(raw []byte, member func(key []byte, v *Value) bool) bool {
	p := fastParser{b: raw}
	v := &Value{p: &p}
	if !p.object(func(key []byte) bool { return member(key, v) }) {
		return false
	}
	p.space()
	return p.i == len(p.b)
}

// Value is the value DecodeObject is at. Each method decodes it as
// json.Unmarshal decodes into the target's type, or returns false.
type Value struct{ p *fastParser }

// Null reports whether the value is null (not yet consumed).
func (v *Value) Null() bool { return v.p.peek() == 'n' }

// String decodes a string (null leaves s as it is).
func (v *Value) String(s *string) bool { return v.p.str(s) }

// Bool decodes true or false (null leaves b as it is).
func (v *Value) Bool(b *bool) bool { return v.p.boolean(b) }

// Raw keeps the value's bytes, as json.RawMessage does; null gives up.
func (v *Value) Raw(m *json.RawMessage) bool { return v.p.raw(m) }

// Float decodes a number into a new float64 (what encoding/json leaves in
// a nil *float64); null and a number out of range give up.
func (v *Value) Float(f **float64) bool {
	if c := v.p.peek(); c != '-' && (c < '0' || c > '9') {
		return false
	}
	start := v.p.i
	if !v.p.number() {
		return false
	}
	x, err := strconv.ParseFloat(string(v.p.b[start:v.p.i]), 64)
	if err != nil {
		return false
	}
	*f = &x
	return true
}

// Skip passes over the value, checking it.
func (v *Value) Skip() bool { return v.p.skip() }
