package state

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// treeOracle is what parseTree must match: json.Unmarshal into an `any`.
func treeOracle(b []byte) (any, error) {
	var v any
	err := json.Unmarshal(b, &v)
	return v, err
}

func checkTree(t *testing.T, in []byte) {
	t.Helper()
	got, gerr := parseTree(in)
	want, werr := treeOracle(in)
	if (gerr == nil) != (werr == nil) {
		t.Fatalf("%.200q: parseTree error %v, json.Unmarshal error %v", in, gerr, werr)
	}
	if gerr == nil && !reflect.DeepEqual(got, want) {
		t.Fatalf("%.200q: parseTree %#v, json.Unmarshal %#v", in, got, want)
	}
}

// TestParseTreeSchemas: every embedded schema parses to exactly what
// json.Unmarshal builds.
func TestParseTreeSchemas(t *testing.T) {
	for _, k := range Kinds {
		t.Run(string(k), func(t *testing.T) {
			b, err := Schema(k)
			if err != nil {
				t.Fatal(err)
			}
			checkTree(t, b)
		})
	}
}

func TestParseTree(t *testing.T) {
	cases := []string{
		`{}`, `[]`, `null`, `true`, `false`, `0`, `-0`, `1.5e3`, `-1E-7`, `1e400`, `01`, `1.`, `.5`, `-`, `+1`, `1e`, `1e+`,
		`"plain"`, `"esc \" \\ \/ \b \f \n \r \t \u00e9 \ud83d\ude00"`, `"bad \ud800"`, `"bad \x"`, "\"ctl \x01\"", "\"utf8 é ✓\"", "\"invalid \xff\xfe\"",
		`"unterminated`, `"ends in backslash\`, `{"a":1,"a":2}`, `{"a":[1,{"b":null}],"c":{"d":"e"}}`, ` { "a" : [ 1 , 2 ] } `,
		`{"a":1,}`, `[1,]`, `{"a" 1}`, `{a:1}`, `[1 2]`, `{"a":1}x`, `tru`, `nul`, `[`, `{`, ``, ` `, `{"a":}`,
	}
	for _, c := range cases {
		t.Run(c, func(t *testing.T) { checkTree(t, []byte(c)) })
	}
	// encoding/json's nesting limit: 10,000 levels parse, 10,001 do not.
	for _, n := range []int{10000, 10001} {
		checkTree(t, []byte(strings.Repeat("[", n)+strings.Repeat("]", n)))
		checkTree(t, []byte(strings.Repeat(`{"a":`, n)+"1"+strings.Repeat("}", n)))
	}
}

// FuzzParseTree holds parseTree to json.Unmarshal's verdict and value on
// any input.
func FuzzParseTree(f *testing.F) {
	for _, k := range Kinds {
		if b, err := Schema(k); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`{"a":[1,-2.5e-3,"x\u00e9",true,null,{}]}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		checkTree(t, in)
	})
}
