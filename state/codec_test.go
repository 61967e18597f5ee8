package state

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/djinn-cc/djinn/engines/loops"
	"github.com/djinn-cc/djinn/engines/reservoir"
	"github.com/rogpeppe/go-internal/txtar"
)

// The oracle of these tests is encoding/json by reflection, on method-less
// copies of the codec's types: plainOf builds them with reflect.StructOf
// (same fields, same tags, no methods), and copyTo moves values between a
// type and its copy. The codec is never its own oracle.

var (
	timeType       = reflect.TypeFor[time.Time]()
	rawMessageType = reflect.TypeFor[json.RawMessage]()
	modulePrefix   = "github.com/djinn-cc/djinn/"
)

var plainTypes sync.Map // reflect.Type -> reflect.Type

// plainOf returns t with every struct type of this module replaced by an
// unnamed struct with the same fields and tags and no methods, so
// encoding/json handles it by reflection alone. Other types (time.Time,
// json.RawMessage, basic types) are kept: their own methods are part of
// what encoding/json does.
func plainOf(t reflect.Type) reflect.Type {
	if p, ok := plainTypes.Load(t); ok {
		return p.(reflect.Type)
	}
	var p reflect.Type
	switch t.Kind() {
	case reflect.Pointer:
		p = reflect.PointerTo(plainOf(t.Elem()))
	case reflect.Slice:
		if t.Name() != "" {
			p = t // json.RawMessage
		} else {
			p = reflect.SliceOf(plainOf(t.Elem()))
		}
	case reflect.Map:
		p = reflect.MapOf(t.Key(), plainOf(t.Elem()))
	case reflect.Struct:
		if !strings.HasPrefix(t.PkgPath(), modulePrefix) {
			p = t
			break
		}
		fields := make([]reflect.StructField, t.NumField())
		for i := range fields {
			f := t.Field(i)
			if !f.IsExported() || f.Anonymous {
				panic(fmt.Sprintf("plainOf: %v.%s is unexported or embedded; the oracle cannot copy it", t, f.Name))
			}
			fields[i] = reflect.StructField{Name: f.Name, Type: plainOf(f.Type), Tag: f.Tag}
		}
		p = reflect.StructOf(fields)
	default:
		p = t
	}
	plainTypes.Store(t, p)
	return p
}

// copyTo copies src into dst, of parallel types (a type and its plainOf),
// keeping nil and empty apart. Slices get cap == len.
func copyTo(dst, src reflect.Value) {
	if dst.Type() == src.Type() && !containsPlain(dst.Type()) {
		dst.Set(src)
		return
	}
	switch src.Kind() {
	case reflect.Pointer:
		if src.IsNil() {
			dst.SetZero()
			return
		}
		n := reflect.New(dst.Type().Elem())
		copyTo(n.Elem(), src.Elem())
		dst.Set(n)
	case reflect.Slice:
		if src.IsNil() {
			dst.SetZero()
			return
		}
		n := reflect.MakeSlice(dst.Type(), src.Len(), src.Len())
		for i := range src.Len() {
			copyTo(n.Index(i), src.Index(i))
		}
		dst.Set(n)
	case reflect.Map:
		if src.IsNil() {
			dst.SetZero()
			return
		}
		n := reflect.MakeMapWithSize(dst.Type(), src.Len())
		it := src.MapRange()
		for it.Next() {
			v := reflect.New(dst.Type().Elem()).Elem()
			copyTo(v, it.Value())
			n.SetMapIndex(it.Key(), v)
		}
		dst.Set(n)
	case reflect.Struct:
		for i := range src.NumField() {
			copyTo(dst.Field(i), src.Field(i))
		}
	default:
		panic(fmt.Sprintf("copyTo: %v into %v", src.Type(), dst.Type()))
	}
}

// containsPlain reports whether t is or holds a type plainOf replaces,
// so that a same-type copy must still be deep (values are never shared
// between the two sides of a comparison).
func containsPlain(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Map:
		return true // copy deeply: no sharing between the two sides
	case reflect.Struct:
		return strings.HasPrefix(t.PkgPath(), modulePrefix) || t.PkgPath() == ""
	}
	return false
}

// clone deep-copies v.
func clone[T any](v *T) *T {
	out := new(T)
	copyTo(reflect.ValueOf(out).Elem(), reflect.ValueOf(v).Elem())
	return out
}

// oracleMarshal is json.Marshal by reflection.
func oracleMarshal[T any](v *T) ([]byte, error) {
	p := reflect.New(plainOf(reflect.TypeFor[T]()))
	copyTo(p.Elem(), reflect.ValueOf(v).Elem())
	return json.Marshal(p.Interface())
}

// oracleUnmarshal is json.Unmarshal by reflection into a copy of start.
func oracleUnmarshal[T any](data []byte, start *T) (*T, error) {
	p := reflect.New(plainOf(reflect.TypeFor[T]()))
	copyTo(p.Elem(), reflect.ValueOf(start).Elem())
	err := json.Unmarshal(data, p.Interface())
	out := new(T)
	copyTo(reflect.ValueOf(out).Elem(), p.Elem())
	return out, err
}

// codecType is a type the codec gives methods to.
type codecType[T any] interface {
	*T
	json.Unmarshaler
}

// checkEncode asserts that the codec writes exactly what reflection
// writes, called directly and through json.Marshal (the path Store.Save
// takes), and that decoding those bytes agrees too. It reports whether
// reflection could encode v.
func checkEncode[T any, PT codecType[T]](t testing.TB, v *T) bool {
	t.Helper()
	want, wantErr := oracleMarshal(v)
	got, gotErr := any(*v).(json.Marshaler).MarshalJSON()
	if (wantErr == nil) != (gotErr == nil) {
		t.Fatalf("%T: reflection error %v, codec error %v", *v, wantErr, gotErr)
	}
	if wantErr != nil {
		return false
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%T: codec and reflection differ:\n%s", *v, firstDiff(got, want))
	}
	via, err := json.Marshal(v)
	if err != nil || !bytes.Equal(via, want) {
		t.Fatalf("%T: json.Marshal through the codec differs (%v):\n%s", *v, err, firstDiff(via, want))
	}
	checkDecode[T, PT](t, want, new(T))
	return true
}

// checkDecode asserts that the codec and reflection, decoding data into
// copies of start, both fail or both give the same value; it reports
// whether they succeeded.
func checkDecode[T any, PT codecType[T]](t testing.TB, data []byte, start *T) bool {
	t.Helper()
	got := clone(start)
	gotErr := PT(got).UnmarshalJSON(data)
	want, wantErr := oracleUnmarshal(data, start)
	if (wantErr == nil) != (gotErr == nil) {
		t.Fatalf("%T: decoding %q: reflection error %v, codec error %v", *start, clip(data), wantErr, gotErr)
	}
	// json.Unmarshal checks the syntax first, then calls the method.
	via := clone(start)
	viaErr := json.Unmarshal(data, PT(via))
	if (wantErr == nil) != (viaErr == nil) {
		t.Fatalf("%T: decoding %q: reflection error %v, json.Unmarshal through the codec %v", *start, clip(data), wantErr, viaErr)
	}
	if wantErr != nil {
		return false
	}
	if !reflect.DeepEqual(got, want) {
		a, _ := oracleMarshal(got)
		b, _ := oracleMarshal(want)
		t.Fatalf("%T: decoding %q: codec and reflection differ; their encodings, codec first:\n%s", *start, data, firstDiff(a, b))
	}
	if !reflect.DeepEqual(via, want) {
		t.Fatalf("%T: decoding %q: json.Unmarshal through the codec and reflection differ", *start, clip(data))
	}
	// DeepEqual holds -0 == 0; the encodings tell them apart.
	a, errA := oracleMarshal(got)
	b, errB := oracleMarshal(want)
	if (errA == nil) != (errB == nil) || !bytes.Equal(a, b) {
		t.Fatalf("%T: decoding %q: re-encodings differ:\n%s", *start, clip(data), firstDiff(a, b))
	}
	return true
}

func clip(b []byte) []byte {
	if len(b) > 300 {
		return append(append([]byte{}, b[:300]...), "..."...)
	}
	return b
}

func firstDiff(got, want []byte) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	lo := max(0, i-60)
	return fmt.Sprintf("at byte %d\ngot  …%q\nwant …%q", i, got[lo:min(len(got), i+60)], want[lo:min(len(want), i+60)])
}

// gen makes random values of the codec's types, biased to the edges
// encoding/json treats specially.
type gen struct {
	rng *rand.Rand
	// bad allows values encoding/json refuses to encode (NaN, ±Inf, bad
	// raw messages); a starting value for decoding must not hold NaN,
	// which DeepEqual never equals.
	bad bool
}

var oddPieces = []string{
	"", "a", "Bash", "main", "<", ">", "&", "<script>&amp;</script>", "\u2028", "\u2029",
	"\xff", "\xc3", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xe2\x80", "\x00", "\x01", "\x1f", "\x7f",
	`"`, `\`, "/", "\b\f\n\r\t", "é", "€", "😀", "\ufffd", "\ufeff", " ", "null", "{}",
	`\u0041`, "K", "\u212a", "ſ", "ǅ", "/work/proj/internal/billing/invoice_08.go", "go test ./...",
}

func (g gen) string() string {
	if g.rng.IntN(8) == 0 {
		b := make([]byte, g.rng.IntN(12))
		for i := range b {
			b[i] = byte(g.rng.IntN(256))
		}
		return string(b)
	}
	var sb strings.Builder
	for range g.rng.IntN(4) {
		sb.WriteString(oddPieces[g.rng.IntN(len(oddPieces))])
	}
	return sb.String()
}

var oddFloats = []float64{
	0, math.Copysign(0, -1), 1, -1, 0.1, -2.5, 1e-6, 9.999999999999999e-7, 1e-7, -1e-7, 1.5e-10,
	1e20, 1e21, -1e21, 9.999999999999999e20, 1.0000000000000002e21, 123456789.123456789,
	math.MaxFloat64, -math.MaxFloat64, math.SmallestNonzeroFloat64, 2.2250738585072014e-308,
	1.5e300, 100, 1e6, 12345678901234567890, 0.30000000000000004, 1e-5, 1e-100,
}

func (g gen) float() float64 {
	if g.bad && g.rng.IntN(500) == 0 {
		return []float64{math.NaN(), math.Inf(1), math.Inf(-1)}[g.rng.IntN(3)] // both must refuse
	}
	switch g.rng.IntN(4) {
	case 0:
		return oddFloats[g.rng.IntN(len(oddFloats))]
	case 1:
		for {
			f := math.Float64frombits(g.rng.Uint64())
			if !math.IsNaN(f) && !math.IsInf(f, 0) {
				return f
			}
		}
	default:
		return g.rng.NormFloat64() * math.Pow(10, float64(g.rng.IntN(60)-30))
	}
}

func (g gen) int64() int64 {
	switch g.rng.IntN(5) {
	case 0:
		return []int64{0, 1, -1, math.MaxInt64, math.MinInt64, 1 << 53, -(1 << 53) - 1}[g.rng.IntN(7)]
	case 1:
		return int64(g.rng.Uint64())
	default:
		return g.rng.Int64N(2000) - 100
	}
}

func (g gen) uint64() uint64 {
	switch g.rng.IntN(4) {
	case 0:
		return []uint64{0, 1, math.MaxUint64, 1 << 63}[g.rng.IntN(4)]
	case 1:
		return g.rng.Uint64()
	default:
		return g.rng.Uint64N(2000)
	}
}

var zones = []*time.Location{
	time.UTC, time.Local, time.FixedZone("", 0), time.FixedZone("CET", 3600), time.FixedZone("", -5*3600-30*60),
	time.FixedZone("", 14*3600), time.FixedZone("", -12*3600), time.FixedZone("odd", 5*3600+45*60+17),
}

// time returns a time in the years time.Time can encode (rarely one it
// cannot: both sides must then fail).
func (g gen) time() time.Time {
	if g.rng.IntN(10) == 0 {
		return time.Time{}
	}
	year := 1970 + g.rng.IntN(100)
	switch g.rng.IntN(20) {
	case 0:
		year = g.rng.IntN(10000)
	case 1:
		year = 10000 + g.rng.IntN(10)
	case 2:
		year = -1 - g.rng.IntN(10)
	}
	ns := 0
	switch g.rng.IntN(3) {
	case 0:
		ns = g.rng.IntN(1e9)
	case 1:
		ns = g.rng.IntN(1000) * 1e6
	}
	t := time.Date(year, time.Month(1+g.rng.IntN(12)), 1+g.rng.IntN(31), g.rng.IntN(24), g.rng.IntN(60), g.rng.IntN(60), ns, zones[g.rng.IntN(len(zones))])
	if g.rng.IntN(4) == 0 {
		t = time.Now() // with a monotonic reading
	}
	return t
}

var rawMessages = []string{
	`{"size":1755804,"boundary":1755804,"reading":{"tokens":83851,"found":true,"model":"claude-sonnet-4-5"}}`,
	` { "a" : [ 1 , 2.50 , -0 , 1E3 , "x" ] , "b" : null } `,
	`"<b>&amp;</b>"`, "\"\u2028\u2029\"", "\"\xff\"", `null`, `true`, `0`, `[]`, `{}`,
	"\t[\n{\"k\":\"\\u003c\"}\n]\r\n", `"\u00e9\ud83d\ude00"`,
}

// badRawMessages are not JSON: encoding/json refuses to write them.
var badRawMessages = []string{`{"a":`, `nul`, `1 2`, "\"\x01\"", ` `}

func (g gen) rawMessage() json.RawMessage {
	switch g.rng.IntN(8) {
	case 0:
		return nil
	case 1:
		return json.RawMessage{}
	}
	if g.bad && g.rng.IntN(50) == 0 {
		return json.RawMessage(badRawMessages[g.rng.IntN(len(badRawMessages))])
	}
	return json.RawMessage(rawMessages[g.rng.IntN(len(rawMessages))])
}

// fill sets v (settable) to a random value; depth bounds the nesting.
func (g gen) fill(v reflect.Value, depth int) {
	if g.rng.IntN(5) == 0 {
		return // the zero value: omitempty's case
	}
	switch v.Type() {
	case timeType:
		v.Set(reflect.ValueOf(g.time()))
		return
	case rawMessageType:
		v.Set(reflect.ValueOf(g.rawMessage()))
		return
	}
	switch v.Kind() {
	case reflect.Bool:
		v.SetBool(g.rng.IntN(2) == 0)
	case reflect.Int, reflect.Int64:
		v.SetInt(g.int64())
	case reflect.Uint64:
		v.SetUint(g.uint64())
	case reflect.Float64:
		v.SetFloat(g.float())
	case reflect.String:
		v.SetString(g.string())
	case reflect.Pointer:
		if depth > 4 {
			return
		}
		p := reflect.New(v.Type().Elem())
		g.fill(p.Elem(), depth+1)
		v.Set(p)
	case reflect.Slice:
		n := g.rng.IntN(5)
		if depth > 4 {
			n = 0
		}
		s := reflect.MakeSlice(v.Type(), n, n)
		for i := range n {
			g.fill(s.Index(i), depth+1)
		}
		v.Set(s)
	case reflect.Map:
		n := g.rng.IntN(5)
		if depth > 4 {
			n = 0
		}
		m := reflect.MakeMapWithSize(v.Type(), n)
		for range n {
			e := reflect.New(v.Type().Elem()).Elem()
			g.fill(e, depth+1)
			m.SetMapIndex(reflect.ValueOf(g.string()), e)
		}
		v.Set(m)
	case reflect.Struct:
		for i := range v.NumField() {
			g.fill(v.Field(i), depth+1)
		}
	default:
		panic(fmt.Sprintf("gen: no generator for %v", v.Type()))
	}
}

func newGen(t testing.TB, stream uint64) gen {
	t.Helper()
	return gen{rng: rand.New(rand.NewPCG(20261121, stream))}
}

// TestCodecOracleIsReflection makes sure the oracle cannot be the codec:
// the plain copies implement neither json.Marshaler nor json.Unmarshaler,
// and have the same size and field offsets as the originals.
func TestCodecOracleIsReflection(t *testing.T) {
	marshaler := reflect.TypeFor[json.Marshaler]()
	unmarshaler := reflect.TypeFor[json.Unmarshaler]()
	var walk func(orig reflect.Type, seen map[reflect.Type]bool)
	walk = func(orig reflect.Type, seen map[reflect.Type]bool) {
		if seen[orig] {
			return
		}
		seen[orig] = true
		p := plainOf(orig)
		if p.Size() != orig.Size() {
			t.Errorf("plainOf(%v) has size %d, not %d", orig, p.Size(), orig.Size())
		}
		switch orig.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Map:
			walk(orig.Elem(), seen)
		case reflect.Struct:
			if p == orig {
				return // time.Time
			}
			if p.Implements(marshaler) || reflect.PointerTo(p).Implements(unmarshaler) {
				t.Errorf("plainOf(%v) has JSON methods", orig)
			}
			if !reflect.PointerTo(orig).Implements(unmarshaler) && orig.PkgPath() == reflect.TypeFor[Window]().PkgPath() {
				t.Errorf("%v has no UnmarshalJSON: is codec_gen.go missing it?", orig)
			}
			for i := range orig.NumField() {
				if p.Field(i).Offset != orig.Field(i).Offset || p.Field(i).Tag != orig.Field(i).Tag {
					t.Errorf("plainOf(%v).%s differs in offset or tag", orig, orig.Field(i).Name)
				}
				walk(orig.Field(i).Type, seen)
			}
		}
	}
	for _, typ := range []reflect.Type{reflect.TypeFor[Window](), reflect.TypeFor[Turn](), reflect.TypeFor[Advisory](), reflect.TypeFor[Anchor]()} {
		walk(typ, map[reflect.Type]bool{})
	}
}

// checkRandom runs checkEncode over n random values of T, and decodes
// random documents (two values spliced into one object, so most keys come
// twice, sometimes an unknown key, mangled keys and whitespace) into
// random starting values.
func checkRandom[T any, PT codecType[T]](t *testing.T, stream uint64, n int) {
	g := newGen(t, stream)
	encoded, failed, merged := 0, 0, 0
	for range n {
		var a, b, start T
		g.bad = true
		g.fill(reflect.ValueOf(&a).Elem(), 0)
		g.bad = false
		g.fill(reflect.ValueOf(&b).Elem(), 0)
		g.fill(reflect.ValueOf(&start).Elem(), 0)
		if !checkEncode[T, PT](t, &a) {
			failed++
			continue
		}
		encoded++
		ja, _ := oracleMarshal(&a)
		jb, errB := oracleMarshal(&b)
		doc := ja
		if errB == nil && len(ja) > 2 && len(jb) > 2 && ja[0] == '{' {
			doc = append(append(append([]byte{}, ja[:len(ja)-1]...), ','), jb[1:]...)
		}
		if g.rng.IntN(3) == 0 && len(doc) > 2 && doc[0] == '{' {
			// An unknown key, skipped whatever its value.
			unknown := fmt.Sprintf(`{"unknown_%d":%s,`, g.rng.IntN(3), rawMessages[g.rng.IntN(len(rawMessages))])
			doc = append([]byte(unknown), doc[1:]...)
		}
		doc = mangle(g, doc)
		if checkDecode[T, PT](t, doc, &start) {
			merged++
		}
	}
	// Both sides must have been exercised: mostly encodable values, and
	// some errors (unencodable times and raw messages).
	if encoded < n/2 || merged < encoded*9/10 {
		t.Errorf("%T: only %d of %d random values were encodable, %d spliced documents decodable", *new(T), encoded, n, merged)
	}
	t.Logf("%T: %d values encoded identically, %d refused by both; %d spliced documents decoded alike", *new(T), encoded, failed, merged)
}

// mangle rewrites a document's keys the ways encoding/json still matches
// them (case changes, the Kelvin sign and long s, \u escapes) and puts
// whitespace between tokens, keeping its meaning for a case-insensitive
// reader. It walks the tokens with json.Decoder.
func mangle(g gen, doc []byte) []byte {
	if g.rng.IntN(3) == 0 {
		return doc
	}
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var out bytes.Buffer
	type frame struct {
		object bool
		n      int
	}
	var stack []frame
	ws := func() {
		if g.rng.IntN(4) == 0 {
			out.WriteString([]string{" ", "\n", "\t", "\r\n  "}[g.rng.IntN(4)])
		}
	}
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return doc
		}
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			stack = stack[:len(stack)-1]
			ws()
			out.WriteByte(byte(d))
			continue
		}
		isKey := false
		if len(stack) > 0 {
			top := &stack[len(stack)-1]
			switch {
			case top.object && top.n%2 == 0:
				isKey = true
				if top.n > 0 {
					out.WriteByte(',')
				}
			case top.object:
				out.WriteByte(':')
			case top.n > 0:
				out.WriteByte(',')
			}
			top.n++
		}
		ws()
		switch v := tok.(type) {
		case json.Delim:
			out.WriteByte(byte(v))
			stack = append(stack, frame{object: v == '{'})
		case string:
			if isKey {
				out.WriteString(mangleKey(g, v))
			} else {
				b, _ := json.Marshal(v)
				out.Write(b)
			}
		case json.Number:
			out.WriteString(string(v))
		case bool:
			fmt.Fprint(&out, v)
		case nil:
			out.WriteString("null")
		}
		ws()
	}
	return out.Bytes()
}

func mangleKey(g gen, k string) string {
	var sb strings.Builder
	sb.WriteByte('"')
	for _, r := range k {
		switch {
		case r == 'k' && g.rng.IntN(3) == 0:
			sb.WriteString("\u212a")
		case r == 's' && g.rng.IntN(3) == 0:
			sb.WriteString("ſ")
		case 'a' <= r && r <= 'z' && g.rng.IntN(4) == 0:
			sb.WriteRune(r - 'a' + 'A')
		case r < 0x80 && g.rng.IntN(6) == 0:
			fmt.Fprintf(&sb, `\u%04x`, r)
		default:
			b, _ := json.Marshal(string(r))
			sb.Write(b[1 : len(b)-1])
		}
	}
	sb.WriteByte('"')
	return sb.String()
}

// TestCodecMatchesReflection is the property test: random values of every
// type the codec handles encode to exactly the bytes encoding/json writes
// by reflection, and random documents decode to the same values.
func TestCodecMatchesReflection(t *testing.T) {
	n := 3000
	if testing.Short() {
		n = 300
	}
	t.Run("Window", func(t *testing.T) { checkRandom[Window](t, 1, n) })
	t.Run("Turn", func(t *testing.T) { checkRandom[Turn](t, 2, n) })
	t.Run("Advisory", func(t *testing.T) { checkRandom[Advisory](t, 3, n) })
	t.Run("Drift", func(t *testing.T) { checkRandom[Drift](t, 4, n/3) })
	t.Run("CallSignal", func(t *testing.T) { checkRandom[CallSignal](t, 5, n/3) })
	t.Run("Verdict", func(t *testing.T) { checkRandom[Verdict](t, 6, n/3) })
	t.Run("Pressure", func(t *testing.T) { checkRandom[Pressure](t, 7, n/3) })
	t.Run("Stall", func(t *testing.T) { checkRandom[Stall](t, 8, n/3) })
	t.Run("Recent", func(t *testing.T) { checkRandom[Recent](t, 9, n/3) })
	t.Run("Failure", func(t *testing.T) { checkRandom[Failure](t, 10, n/3) })
	t.Run("ReorientResult", func(t *testing.T) { checkRandom[ReorientResult](t, 11, n/3) })
	t.Run("Sample", func(t *testing.T) { checkRandom[Sample](t, 12, n/3) })
	t.Run("Anchor", func(t *testing.T) { checkRandom[Anchor](t, 13, n) })
	t.Run("Delta", func(t *testing.T) { checkRandom[Delta](t, 14, n/3) })
	t.Run("Logged", func(t *testing.T) { checkRandom[Logged](t, 15, n/3) })
}

// TestCodecEncodeEdges pins the encoding details one by one, each against
// reflection, so a failure names the detail.
func TestCodecEncodeEdges(t *testing.T) {
	base := func() Window {
		return Window{SchemaVersion: 1, SessionID: "s", CreatedAt: time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)}
	}
	cases := []struct {
		name string
		mod  func(w *Window)
	}{
		{"zero", func(w *Window) { *w = Window{} }},
		{"html", func(w *Window) { w.SessionID = "<a href='x'>&amp;</a>" }},
		{"line separators", func(w *Window) { w.SessionID = "a\u2028b\u2029c" }},
		{"invalid utf8", func(w *Window) { w.SessionID = "a\xffb\xed\xa0\x80c\xc3" }},
		{"control bytes", func(w *Window) { w.SessionID = "\x00\x01\b\f\n\r\t\x1f\x7f\"\\/" }},
		{"nil vs empty slice", func(w *Window) { w.Disabled = []string{}; w.Drift = &Drift{} }},
		{"nil vs empty map", func(w *Window) {
			w.Events = map[string]int{}
			w.Stall = &Stall{Agents: map[string]int{}}
		}},
		{"empty drift", func(w *Window) { w.Drift = &Drift{Reservoir: reservoir.New[Sample](4)} }},
		{"sorted map keys", func(w *Window) {
			w.Events = map[string]int{"b": 1, "a": 2, "B": 3, "é": 4, "<": 5, "": 6, "\xff": 7}
		}},
		{"floats", func(w *Window) {
			w.Drift = &Drift{Threshold: 1e-7, Verdict: &Verdict{Score: 1e21, Mean: 9.999999999999999e20, CILo: math.Copysign(0, -1), CIHi: 1e-6, Threshold: 123456789.125}}
			w.Reorient = &ReorientResult{Alignment: 5e-324, Coverage: -math.MaxFloat64}
		}},
		{"times", func(w *Window) {
			w.CreatedAt = time.Date(2026, 1, 2, 3, 4, 5, 123456789, time.FixedZone("", -(3*3600+30*60)))
			w.UpdatedAt = time.Date(1, 1, 1, 0, 0, 0, 1, time.UTC)
		}},
		{"raw message", func(w *Window) {
			w.Pressure = &Pressure{Cursor: json.RawMessage(" {\"a\" : \"<\u2028>\" ,\n\"b\":[1, 2]} "), Announced: []bool{true, false}}
		}},
		{"empty raw message", func(w *Window) { w.Pressure = &Pressure{Cursor: json.RawMessage{}} }},
		{"loops", func(w *Window) {
			w.Loops = map[string]*loops.State{
				"main": {Seq: math.MaxUint64, Events: []loops.Event{{Seq: 1, Tool: "Read", Target: "<x>", Failed: true}}, Patterns: map[string]loops.PatternState{"read-loop": {EMA: 0.5, Last: 3, LastHard: true, Alerts: 2}}},
				"sub":  nil,
				"z":    {},
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := base()
			c.mod(&w)
			if !checkEncode(t, &w) {
				t.Fatal("reflection could not encode the case")
			}
		})
	}
	t.Run("errors", func(t *testing.T) {
		for _, w := range []Window{
			{Drift: &Drift{Threshold: math.NaN()}},
			{Drift: &Drift{Verdict: &Verdict{Score: math.Inf(-1)}}},
			{CreatedAt: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)},
			{Pressure: &Pressure{Cursor: json.RawMessage(`{"a":`)}},
		} {
			if checkEncode(t, &w) {
				t.Errorf("%+v: reflection encoded it", w)
			}
		}
	})
}

// TestCodecDecodeEdges decodes hand-made documents with both decoders,
// from a zero value and from a full one (decoding merges into what is
// there).
func TestCodecDecodeEdges(t *testing.T) {
	full := func() *Window {
		w := &Window{
			SessionID: "old", Events: map[string]int{"a": 1}, Disabled: []string{"x", "y", "z"},
			Loops:  map[string]*loops.State{"main": {Seq: 3, Events: []loops.Event{{Seq: 1, Tool: "A"}, {Seq: 2, Tool: "B"}}}},
			Drift:  &Drift{Intent: "old", Recent: []CallSignal{{Seq: 1, Topic: "t", Tokens: []string{"a"}}, {Seq: 2}}},
			Recent: []Recent{{Seq: 1, Kind: "k", Text: "t"}, {Seq: 2, Kind: "k2"}},
		}
		return w
	}
	docs := []string{
		`{}`, `null`, ` {} `, "\t\n\r {}\n",
		`{"session_id":"a","session_id":"b"}`,
		`{"SESSION_ID":"a"}`, `{"Session_Id":"a","session_id":"b"}`, `{"session_id":"b","SESSION_ID":"a"}`,
		`{"ſession_id":"long s"}`, `{"recent":[{"\u212aind":"kelvin"}]}`, `{"s\u0065ssion_id":"escaped key"}`,
		`{"sessionid":"no match"}`, `{"unknown":{"a":[1,{"b":null}],"c":"\ud800"},"session_id":"x"}`,
		`{"events":{"b":2},"events":{"c":3}}`, `{"events":null}`, `{"events":{}}`, `{"events":{"a":null}}`,
		`{"disabled":["p"]}`, `{"disabled":[]}`, `{"disabled":null}`, `{"disabled":["p",null,"q","r"]}`,
		`{"disabled":["a","b","c","d"],"disabled":["e"],"disabled":[null,null,null]}`,
		`{"recent":[{"seq":5}]}`, `{"recent":[{"seq":5},{},{"text":"n"}]}`, `{"recent":[null,null]}`,
		`{"recent":[{"seq":1,"kind":"a"},{"seq":2,"kind":"b"}],"recent":[{"seq":3}],"recent":[{},{}]}`,
		`{"drift":{"intent":"new"}}`, `{"drift":null}`, `{"drift":{"recent":[{"tokens":["b"]}]}}`,
		`{"drift":{"reservoir":{"k":2,"items":[{"seq":1,"score":0.5}]}},"drift":{"reservoir":{"n_seen":9}}}`,
		`{"loops":{"main":{"n":7}}}`, `{"loops":{"main":null}}`, `{"loops":{"sub":{"events":[{"n":1,"tool":"R"}]}}}`,
		`{"loops":{"main":{"patterns":{"p":{"ema":1}}}},"loops":{"main":{"patterns":{"q":{"alerts":2}}}}}`,
		`{"loops":{"main":{"patterns":{"p":null}}}}`, `{"loops":{"main":{"n":18446744073709551615}}}`,
		`{"loops":{"main":{"n":18446744073709551616}}}`, `{"loops":{"main":{"n":-1}}}`, `{"loops":{"main":{"n":1.0}}}`,
		`{"pressure":{"cursor":{"a" : 1 }}}`, `{"pressure":{"cursor":null}}`, `{"pressure":{"cursor":"x"}}`,
		`{"pressure":{"cursor":[1,2],"cursor":3}}`, `{"pressure":{"announced":[true,null,false]}}`,
		`{"created_at":"2026-11-21T10:00:00.123456789+05:30"}`, `{"created_at":null}`, `{"created_at":"2026-11-21"}`,
		`{"created_at":"2026-11-21T10:00:00\u005a"}`, `{"created_at":1}`, `{"created_at":{}}`,
		`{"tool_calls":-0}`, `{"tool_calls":9223372036854775807}`, `{"tool_calls":9223372036854775808}`,
		`{"tool_calls":-9223372036854775808}`, `{"tool_calls":1e2}`, `{"tool_calls":1.5}`, `{"tool_calls":"1"}`,
		`{"tool_calls":true}`, `{"tool_calls":null}`, `{"tool_calls":[]}`, `{"tool_calls":{}}`,
		`{"drift":{"threshold":1e400}}`, `{"drift":{"threshold":1e-400}}`, `{"drift":{"threshold":-0.0}}`,
		`{"drift":{"threshold":0.1e1,"calls":12345678901234567890}}`, `{"drift":{"insufficient":"true"}}`,
		`{"drift":5}`, `{"drift":"x"}`, `{"drift":[]}`, `{"drift":true}`, `{"recent":{}}`, `{"events":[]}`,
		`{"session_id":"\ud83d\ude00 \ud83d \ude00 \udc00\ud800x \u00e9 \/ \b"}`, "{\"session_id\":\"\xff\xfe \xed\xa0\x80\"}",
		"{\"session_id\":\"a\x01\"}", `{"session_id":"\x"}`, `{"session_id":"\u12"}`, `{"session_id":"\'"}`,
		`{"session_id":1}`, `{"session_id":null}`, `{"session_id":"a"`, `{"session_id":"a",}`, `{"session_id" "a"}`,
		`{,}`, `{"a":1}}`, `{}{}`, `{} x`, ``, ` `, `[]`, `"x"`, `1`, `true`, `nul`, `nulls`, `{"a":tru}`,
		`{"a":01}`, `{"a":-}`, `{"a":1.}`, `{"a":1e}`, `{"a":.5}`, `{"a":+1}`, `{"a":1E+2}`, `{"a":[1,]}`, `{"a":[,1]}`,
		`{"a":[1 2]}`, `{"a":{"b" 1}}`, `{"a":{"b":1,}}`, `{"a":{1:2}}`, `{'a':1}`, "{\"a\":1}\x00", "\ufeff{}",
		`{"a":"` + strings.Repeat("x", 100) + `"}`,
		`{"x":` + strings.Repeat("[", 9999) + strings.Repeat("]", 9999) + `}`,
		`{"x":` + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + `}`,
		`{"x":` + strings.Repeat(`{"a":`, 9998) + `1` + strings.Repeat("}", 9998) + `}`,
		`{"x":` + strings.Repeat(`{"a":`, 9999) + `1` + strings.Repeat("}", 9999) + `}`,
		`{"drift":{"recent":[{"tokens":` + strings.Repeat("[", 9997) + strings.Repeat("]", 9997) + `}]}}`,
		`{"drift":{"recent":[{"x":` + strings.Repeat("[", 9996) + strings.Repeat("]", 9996) + `}]}}`,
		`{"drift":{"recent":[{"x":` + strings.Repeat("[", 9997) + strings.Repeat("]", 9997) + `}]}}`,
	}
	valid, _ := os.ReadFile(filepath.Join("testdata", "valid", "window.json"))
	docs = append(docs, string(valid))
	for i, doc := range docs {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			checkDecode(t, []byte(doc), &Window{})
			checkDecode(t, []byte(doc), full())
		})
	}
	// Spot checks that the oracle sees what the codec is meant to mirror.
	var w Window
	if err := w.UnmarshalJSON([]byte(`{"recent":[{"seq":1,"kind":"a"},{"seq":2,"kind":"b"}],"recent":[{"seq":3}],"recent":[{},{}]}`)); err != nil {
		t.Fatal(err)
	}
	if want := []Recent{{Seq: 3, Kind: "a"}, {Seq: 2, Kind: "b"}}; !reflect.DeepEqual(w.Recent, want) {
		t.Errorf("duplicate slices: got %+v, want %+v (elements reused past the length, within the capacity)", w.Recent, want)
	}
	w = Window{}
	if err := w.UnmarshalJSON([]byte(`{"SESSION_ID":"a","ſession_id":"b","pressure":{"cursor":null}}`)); err != nil {
		t.Fatal(err)
	}
	if w.SessionID != "b" || string(w.Pressure.Cursor) != "null" {
		t.Errorf("folded keys / raw null: got %q, cursor %q", w.SessionID, w.Pressure.Cursor)
	}
}

// realDoc is a real document; written marks one Djinn wrote (compact),
// whose bytes reflection must reproduce exactly.
type realDoc struct {
	name    string
	data    []byte
	written bool
}

// realDocs returns the window.json, turn and advisory documents at hand:
// the state package's testdata (testdata/codec holds files written by
// `djinn replay --keep-state` and scripts/hookbench), the testscripts'
// files, and the state root named by $DJINN_CODEC_STATE if set.
func realDocs(t *testing.T) (windows, turns, advisories []realDoc) {
	t.Helper()
	add := func(name string, data []byte, written bool) {
		switch base := filepath.Base(name); {
		case strings.Contains(base, "window") && strings.HasSuffix(base, ".json"):
			windows = append(windows, realDoc{name, data, written})
		case strings.Contains(base, "turn"):
			for _, l := range splitLines(data) {
				turns = append(turns, realDoc{name, l, written})
			}
		case strings.Contains(base, "advisor"):
			for _, l := range splitLines(data) {
				advisories = append(advisories, realDoc{name, l, written})
			}
		}
	}
	for _, pat := range []string{"testdata/valid/*", "testdata/bench/*", "testdata/codec/*"} {
		files, _ := filepath.Glob(pat)
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			add(f, data, strings.HasPrefix(f, "testdata/codec/") || strings.HasSuffix(f, "window-10000.json"))
		}
	}
	scripts, _ := filepath.Glob(filepath.Join("..", "testdata", "script", "*.txtar"))
	for _, s := range scripts {
		a, err := txtar.ParseFile(s)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range a.Files {
			add(s+":"+f.Name, f.Data, false)
		}
	}
	if dir := os.Getenv("DJINN_CODEC_STATE"); dir != "" {
		err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			switch d.Name() {
			case "window.json", "turns.jsonl", "advisories.jsonl":
				data, err := os.ReadFile(p)
				if err != nil {
					return err
				}
				add(p, data, true)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return windows, turns, advisories
}

func splitLines(data []byte) [][]byte {
	var out [][]byte
	for _, l := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(l)) > 0 {
			out = append(out, l)
		}
	}
	return out
}

// checkReal decodes a real document with both decoders and re-encodes it
// with both encoders; a document Djinn wrote must come back byte for
// byte. It reports whether the document decoded.
func checkReal[T any, PT codecType[T]](t *testing.T, d realDoc) bool {
	t.Helper()
	if !checkDecode[T, PT](t, d.data, new(T)) {
		if d.written {
			t.Errorf("%s: Djinn wrote a document neither decoder reads", d.name)
		}
		return false
	}
	v := new(T)
	if err := PT(v).UnmarshalJSON(d.data); err != nil {
		t.Fatal(err)
	}
	checkEncode[T, PT](t, v)
	if d.written {
		got, err := any(*v).(json.Marshaler).MarshalJSON()
		if want := bytes.TrimSuffix(d.data, []byte("\n")); err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: re-encoding changes the bytes (%v):\n%s", d.name, err, firstDiff(got, want))
		}
	}
	return true
}

// TestCodecRealDocuments runs checkReal over every real document.
func TestCodecRealDocuments(t *testing.T) {
	windows, turns, advisories := realDocs(t)
	if len(windows) < 6 || len(turns) < 20 || len(advisories) < 10 {
		t.Fatalf("found only %d windows, %d turns, %d advisories", len(windows), len(turns), len(advisories))
	}
	n := 0
	for _, d := range windows {
		if checkReal[Window](t, d) {
			n++
		}
	}
	for _, d := range turns {
		checkReal[Turn](t, d)
	}
	for _, d := range advisories {
		checkReal[Advisory](t, d)
	}
	t.Logf("%d windows (%d decodable), %d turns, %d advisories", len(windows), n, len(turns), len(advisories))
}

// TestCodecSavedBytes: a window saved and loaded through the Store comes
// back with the very bytes reflection writes.
func TestCodecSavedBytes(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "bench", "window-1000.json"))
	if err != nil {
		t.Fatal(err)
	}
	var w Window
	if err := json.Unmarshal(raw, &w); err != nil {
		t.Fatal(err)
	}
	st := &Store{Root: t.TempDir(), NoSync: true}
	p := filepath.Join(st.Root, "window.json")
	if err := st.Save(p, KindWindow, &w); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	want, err := oracleMarshal(&w)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, append(want, '\n')) {
		t.Fatalf("saved bytes differ from reflection's:\n%s", firstDiff(got, want))
	}
	var back Window
	if found, err := (&Store{Root: st.Root}).Load(p, KindWindow, &back); !found || err != nil {
		t.Fatal(found, err)
	}
	// (Not w itself: the file's pressure cursor was indented, the saved
	// one is compact.)
	wantBack, err := oracleUnmarshal(want, &Window{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(&back, wantBack) {
		t.Fatal("loaded window differs from reflection's decoding of the saved bytes")
	}
}

// TestFoldKey: foldKey(x) == foldKey(y) exactly when bytes.EqualFold(x, y),
// encoding/json's definition of a case-insensitive key match.
func TestFoldKey(t *testing.T) {
	alphabet := []string{"k", "K", "\u212a", "s", "S", "ſ", "é", "É", "ǅ", "ǆ", "Ǆ", "_", "1", "\xff", "\ufffd", "ß", "ẞ", "σ", "ς", "Σ"}
	g := newGen(t, 99)
	word := func() []byte {
		var b []byte
		for range g.rng.IntN(4) {
			b = append(b, alphabet[g.rng.IntN(len(alphabet))]...)
		}
		return b
	}
	matches := 0
	for range 20000 {
		x, y := word(), word()
		fx, fy := foldKey(nil, x), foldKey(nil, y)
		if bytes.Equal(fx, fy) != bytes.EqualFold(x, y) {
			t.Fatalf("%q %q: folded %q %q, EqualFold %v", x, y, fx, fy, bytes.EqualFold(x, y))
		}
		if bytes.Equal(fx, fy) && !bytes.Equal(x, y) {
			matches++
		}
	}
	if matches == 0 {
		t.Fatal("no non-trivial fold matches were tried")
	}
}
