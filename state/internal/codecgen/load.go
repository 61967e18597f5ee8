package main

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// kind is what the codec does with a type.
type kind int

const (
	kBool kind = iota
	kInt
	kInt64
	kUint64
	kFloat64
	kString
	kTime       // time.Time: through its RFC 3339 text
	kRawMessage // encoding/json.RawMessage: kept as it is
	kSlice
	kMap // map[string]elem
	kPtr
	kStruct
)

// typ is a type the codec handles.
type typ struct {
	kind kind
	elem *typ     // kSlice, kMap, kPtr
	st   *structT // kStruct
	// goExpr spells the type in the generated package; id names the
	// type in the generated function names; desc names it in error
	// messages, as reflect would.
	goExpr, id, desc string
}

// structT is a struct type with its JSON fields in order.
type structT struct {
	pkg   *pkgInfo
	name  string
	local bool // declared in the generated package
	// generic is set for an instantiated generic type: Go has no methods
	// on those, so even a local one gets plain functions only.
	generic bool
	fields  []field
	t       *typ
}

// field is one JSON field of a struct, as encoding/json sees it.
type field struct {
	goName    string
	jsonName  string
	omitEmpty bool
	t         *typ
}

// pkgInfo is one parsed package.
type pkgInfo struct {
	path, name, dir string
	types           map[string]typeDecl
	// jsonMethods lists, per receiver type, the JSON or text methods it
	// declares: the codec would bypass them, so such a foreign type is
	// refused.
	jsonMethods map[string][]string
}

type typeDecl struct {
	spec *ast.TypeSpec
	file *ast.File
}

// loader resolves the types reachable from the roots.
type loader struct {
	fset       *token.FileSet
	modRoot    string
	modPath    string
	out        string // the generated file, not read back
	pkgs       map[string]*pkgInfo
	home       *pkgInfo // the package the code is generated into
	named      map[string]*typ
	composites map[string]*typ
	// order lists every struct and composite type in the order found,
	// so the output is deterministic.
	order []*typ
}

// scope is where a type expression is resolved: its package, its file
// (for the imports) and the type parameters bound so far.
type scope struct {
	pkg    *pkgInfo
	file   *ast.File
	params map[string]*typ
}

func newLoader(dir, out string) (*loader, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	root := dir
	for {
		if _, err := os.Stat(filepath.Join(root, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(root)
		if parent == root {
			return nil, fmt.Errorf("no go.mod above %s", dir)
		}
		root = parent
	}
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return nil, err
	}
	var modPath string
	for _, line := range strings.Split(string(mod), "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
			modPath = strings.Trim(strings.TrimSpace(rest), `"`)
			break
		}
	}
	if modPath == "" {
		return nil, fmt.Errorf("%s/go.mod has no module line", root)
	}
	l := &loader{
		fset:       token.NewFileSet(),
		modRoot:    root,
		modPath:    modPath,
		out:        out,
		pkgs:       map[string]*pkgInfo{},
		named:      map[string]*typ{},
		composites: map[string]*typ{},
	}
	rel, err := filepath.Rel(root, dir)
	if err != nil {
		return nil, err
	}
	l.home, err = l.pkg(modPath + "/" + filepath.ToSlash(rel))
	return l, err
}

// pkg parses the non-test files of a package of the module.
func (l *loader) pkg(path string) (*pkgInfo, error) {
	if p, ok := l.pkgs[path]; ok {
		return p, nil
	}
	rel, ok := strings.CutPrefix(path, l.modPath+"/")
	if !ok {
		return nil, fmt.Errorf("package %s is outside module %s", path, l.modPath)
	}
	dir := filepath.Join(l.modRoot, filepath.FromSlash(rel))
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	slices.Sort(names)
	p := &pkgInfo{path: path, dir: dir, types: map[string]typeDecl{}, jsonMethods: map[string][]string{}}
	for _, name := range names {
		base := filepath.Base(name)
		if strings.HasSuffix(base, "_test.go") || (l.home == nil && base == l.out) {
			continue
		}
		f, err := parser.ParseFile(l.fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		if p.name == "" {
			p.name = f.Name.Name
		}
		for _, decl := range f.Decls {
			switch decl := decl.(type) {
			case *ast.GenDecl:
				if decl.Tok != token.TYPE {
					continue
				}
				for _, spec := range decl.Specs {
					ts := spec.(*ast.TypeSpec)
					if _, dup := p.types[ts.Name.Name]; dup {
						return nil, fmt.Errorf("%s: type %s declared twice (build tags?)", path, ts.Name.Name)
					}
					p.types[ts.Name.Name] = typeDecl{ts, f}
				}
			case *ast.FuncDecl:
				if decl.Recv == nil || len(decl.Recv.List) == 0 {
					continue
				}
				switch decl.Name.Name {
				case "MarshalJSON", "UnmarshalJSON", "MarshalText", "UnmarshalText", "AppendText":
					recv := receiverName(decl.Recv.List[0].Type)
					p.jsonMethods[recv] = append(p.jsonMethods[recv], decl.Name.Name)
				}
			}
		}
	}
	if p.name == "" {
		return nil, fmt.Errorf("package %s has no Go files", path)
	}
	l.pkgs[path] = p
	return p, nil
}

func receiverName(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.ParenExpr:
			e = x.X
		case *ast.Ident:
			return x.Name
		default:
			return ""
		}
	}
}

// root resolves a root type of the home package.
func (l *loader) root(name string) (*typ, error) {
	t, err := l.namedType(l.home, name, nil)
	if err != nil {
		return nil, err
	}
	if !t.st.local {
		return nil, fmt.Errorf("root %s is not declared in %s", name, l.home.path)
	}
	return t, nil
}

var basics = map[string]*typ{
	"bool":    {kind: kBool, goExpr: "bool", id: "Bool", desc: "bool"},
	"int":     {kind: kInt, goExpr: "int", id: "Int", desc: "int"},
	"int64":   {kind: kInt64, goExpr: "int64", id: "Int64", desc: "int64"},
	"uint64":  {kind: kUint64, goExpr: "uint64", id: "Uint64", desc: "uint64"},
	"float64": {kind: kFloat64, goExpr: "float64", id: "Float64", desc: "float64"},
	"string":  {kind: kString, goExpr: "string", id: "String", desc: "string"},
}

var (
	timeType = &typ{kind: kTime, goExpr: "time.Time", id: "Time", desc: "time.Time"}
	rawType  = &typ{kind: kRawMessage, goExpr: "json.RawMessage", id: "RawMessage", desc: "json.RawMessage"}
)

func (l *loader) resolve(e ast.Expr, sc scope) (*typ, error) {
	switch x := e.(type) {
	case *ast.ParenExpr:
		return l.resolve(x.X, sc)
	case *ast.Ident:
		if t, ok := sc.params[x.Name]; ok {
			return t, nil
		}
		if t, ok := basics[x.Name]; ok {
			return t, nil
		}
		if _, ok := sc.pkg.types[x.Name]; ok {
			return l.namedType(sc.pkg, x.Name, nil)
		}
		return nil, l.errorf(x, "unsupported type %s", x.Name)
	case *ast.SelectorExpr:
		path, err := l.importPath(x, sc)
		if err != nil {
			return nil, err
		}
		switch {
		case path == "time" && x.Sel.Name == "Time":
			return timeType, nil
		case path == "encoding/json" && x.Sel.Name == "RawMessage":
			return rawType, nil
		case strings.HasPrefix(path, l.modPath+"/"):
			p, err := l.pkg(path)
			if err != nil {
				return nil, err
			}
			return l.namedType(p, x.Sel.Name, nil)
		}
		return nil, l.errorf(x, "unsupported type %s.%s", path, x.Sel.Name)
	case *ast.IndexExpr:
		return l.instance(x.X, []ast.Expr{x.Index}, sc)
	case *ast.IndexListExpr:
		return l.instance(x.X, x.Indices, sc)
	case *ast.StarExpr:
		elem, err := l.resolve(x.X, sc)
		if err != nil {
			return nil, err
		}
		return l.composite(kPtr, elem), nil
	case *ast.ArrayType:
		if x.Len != nil {
			return nil, l.errorf(x, "arrays are not supported")
		}
		elem, err := l.resolve(x.Elt, sc)
		if err != nil {
			return nil, err
		}
		return l.composite(kSlice, elem), nil
	case *ast.MapType:
		if k, ok := x.Key.(*ast.Ident); !ok || k.Name != "string" {
			return nil, l.errorf(x, "only map[string]T is supported")
		}
		elem, err := l.resolve(x.Value, sc)
		if err != nil {
			return nil, err
		}
		return l.composite(kMap, elem), nil
	}
	return nil, l.errorf(e, "unsupported type expression %T", e)
}

func (l *loader) errorf(n ast.Node, format string, args ...any) error {
	return fmt.Errorf("%s: %s", l.fset.Position(n.Pos()), fmt.Sprintf(format, args...))
}

// importPath returns the path of the package a selector's qualifier names.
func (l *loader) importPath(x *ast.SelectorExpr, sc scope) (string, error) {
	q, ok := x.X.(*ast.Ident)
	if !ok {
		return "", l.errorf(x, "unsupported qualified type")
	}
	for _, imp := range sc.file.Imports {
		path, err := strconv.Unquote(imp.Path.Value)
		if err != nil {
			return "", err
		}
		name := ""
		switch {
		case imp.Name != nil:
			name = imp.Name.Name
		case strings.HasPrefix(path, l.modPath+"/"):
			p, err := l.pkg(path)
			if err != nil {
				return "", err
			}
			name = p.name
		default:
			name = path[strings.LastIndex(path, "/")+1:]
		}
		if name == q.Name {
			return path, nil
		}
	}
	return "", l.errorf(x, "no import for %s", q.Name)
}

// instance resolves a generic type instantiated with args.
func (l *loader) instance(base ast.Expr, args []ast.Expr, sc scope) (*typ, error) {
	var targs []*typ
	for _, a := range args {
		t, err := l.resolve(a, sc)
		if err != nil {
			return nil, err
		}
		targs = append(targs, t)
	}
	switch b := base.(type) {
	case *ast.Ident:
		return l.namedType(sc.pkg, b.Name, targs)
	case *ast.SelectorExpr:
		path, err := l.importPath(b, sc)
		if err != nil {
			return nil, err
		}
		p, err := l.pkg(path)
		if err != nil {
			return nil, err
		}
		return l.namedType(p, b.Sel.Name, targs)
	}
	return nil, l.errorf(base, "unsupported generic type")
}

// namedType resolves the struct type name of p, instantiated with args.
func (l *loader) namedType(p *pkgInfo, name string, args []*typ) (*typ, error) {
	var argExprs, argIDs, argDescs []string
	for _, a := range args {
		argExprs = append(argExprs, a.goExpr)
		argIDs = append(argIDs, a.id)
		argDescs = append(argDescs, a.desc)
	}
	key := p.path + "." + name + "[" + strings.Join(argIDs, ",") + "]"
	if t, ok := l.named[key]; ok {
		return t, nil
	}
	decl, ok := p.types[name]
	if !ok {
		return nil, fmt.Errorf("%s: no type %s", p.path, name)
	}
	if decl.spec.Assign.IsValid() {
		return nil, l.errorf(decl.spec, "type alias %s is not supported", name)
	}
	stExpr, ok := decl.spec.Type.(*ast.StructType)
	if !ok {
		return nil, l.errorf(decl.spec, "%s is not a struct type (only structs, basic types, time.Time and json.RawMessage are supported)", name)
	}
	local := p == l.home
	if !local && !ast.IsExported(name) {
		return nil, l.errorf(decl.spec, "%s.%s is unexported", p.name, name)
	}
	if ms := p.jsonMethods[name]; len(ms) > 0 && !local {
		return nil, l.errorf(decl.spec, "%s.%s has its own %s, which the codec would bypass", p.name, name, strings.Join(ms, ", "))
	}
	if ms := p.jsonMethods[name]; len(ms) > 0 && local {
		return nil, l.errorf(decl.spec, "%s has hand-written %s", name, strings.Join(ms, ", "))
	}
	params := map[string]*typ{}
	var nparams int
	if decl.spec.TypeParams != nil {
		for _, f := range decl.spec.TypeParams.List {
			for _, n := range f.Names {
				if nparams < len(args) {
					params[n.Name] = args[nparams]
				}
				nparams++
			}
		}
	}
	if nparams != len(args) {
		return nil, l.errorf(decl.spec, "%s takes %d type arguments, got %d", name, nparams, len(args))
	}
	t := &typ{kind: kStruct}
	st := &structT{pkg: p, name: name, local: local, generic: len(args) > 0, t: t}
	t.st = st
	t.goExpr, t.id, t.desc = name, name, p.name+"."+name
	if !local {
		t.goExpr = p.name + "." + name
		t.id = exportedID(p.name) + name
	}
	if len(args) > 0 {
		t.goExpr += "[" + strings.Join(argExprs, ", ") + "]"
		t.id += "Of" + strings.Join(argIDs, "And")
		t.desc += "[" + strings.Join(argDescs, ",") + "]"
	}
	l.named[key] = t
	l.order = append(l.order, t)

	sc := scope{pkg: p, file: decl.file, params: params}
	seen := map[string]bool{}
	for _, f := range stExpr.Fields.List {
		if len(f.Names) == 0 {
			return nil, l.errorf(f, "embedded field in %s: not supported", name)
		}
		tag := ""
		if f.Tag != nil {
			s, err := strconv.Unquote(f.Tag.Value)
			if err != nil {
				return nil, l.errorf(f, "bad tag: %v", err)
			}
			tag = reflect.StructTag(s).Get("json")
		}
		if tag == "-" {
			continue
		}
		jsonName, opts, _ := strings.Cut(tag, ",")
		omitEmpty := false
		for _, o := range strings.Split(opts, ",") {
			switch o {
			case "omitempty":
				omitEmpty = true
			case "string", "omitzero", "inline", "unknown", "format", "case":
				return nil, l.errorf(f, "json option %q is not supported", o)
			}
		}
		ft, err := l.resolve(f.Type, sc)
		if err != nil {
			return nil, err
		}
		for _, n := range f.Names {
			if !ast.IsExported(n.Name) {
				continue // encoding/json ignores unexported fields
			}
			jn := jsonName
			if !isValidTag(jn) {
				jn = n.Name
			}
			if seen[jn] {
				return nil, l.errorf(f, "%s: two fields named %q", name, jn)
			}
			seen[jn] = true
			st.fields = append(st.fields, field{goName: n.Name, jsonName: jn, omitEmpty: omitEmpty, t: ft})
		}
	}
	return t, nil
}

// composite returns the slice, map or pointer type of elem.
func (l *loader) composite(k kind, elem *typ) *typ {
	var t *typ
	switch k {
	case kSlice:
		t = &typ{kind: k, elem: elem, goExpr: "[]" + elem.goExpr, id: "SliceOf" + elem.id, desc: "[]" + elem.desc}
	case kMap:
		t = &typ{kind: k, elem: elem, goExpr: "map[string]" + elem.goExpr, id: "MapOf" + elem.id, desc: "map[string]" + elem.desc}
	case kPtr:
		t = &typ{kind: k, elem: elem, goExpr: "*" + elem.goExpr, id: "PtrTo" + elem.id, desc: "*" + elem.desc}
	}
	if old, ok := l.composites[t.id]; ok {
		return old
	}
	l.composites[t.id] = t
	l.order = append(l.order, t)
	return t
}

func exportedID(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[n:]
}

// isValidTag is encoding/json's test of a tag name; an invalid one means
// the Go field name.
func isValidTag(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
			// Backslash and quote chars are reserved, but otherwise any
			// punctuation chars are allowed in a tag name.
		case !unicode.IsLetter(c) && !unicode.IsDigit(c):
			return false
		}
	}
	return true
}

// foldName is encoding/json's case folding of field names.
func foldName(in string) string {
	var out []byte
	for i := 0; i < len(in); {
		if c := in[i]; c < utf8.RuneSelf {
			if 'a' <= c && c <= 'z' {
				c -= 'a' - 'A'
			}
			out = append(out, c)
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(in[i:])
		for {
			r2 := unicode.SimpleFold(r)
			if r2 <= r {
				r = r2
				break
			}
			r = r2
		}
		out = utf8.AppendRune(out, r)
		i += n
	}
	return string(out)
}

// htmlEscapedName is a field name as encoding/json writes it in a key.
func htmlEscapedName(name string) string {
	var b bytes.Buffer
	for _, c := range []byte(name) {
		if c == '<' || c == '>' || c == '&' {
			fmt.Fprintf(&b, `\u00%02x`, c)
			continue
		}
		b.WriteByte(c)
	}
	// U+2028 and U+2029 are not valid tag characters (not letters, digits
	// or allowed punctuation), so they cannot occur here.
	return b.String()
}
