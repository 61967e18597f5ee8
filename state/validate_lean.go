//go:build djinn_hook

package state

// compileValidator, in the hook build, uses the in-house checker: the
// jsonschema/v5 package is not linked, so its init cost is not paid.
func compileValidator(_ Kind, schema []byte) (func(any) []FieldError, error) {
	c, err := compileChecker(schema)
	if err != nil {
		return nil, err
	}
	return c.check, nil
}

// FullValidator reports whether schemas are checked by
// santhosh-tekuri/jsonschema/v5 (false in the hook build).
const FullValidator = false
