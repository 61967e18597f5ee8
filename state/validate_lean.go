//go:build djinn_hook

package state

// compileValidator, in the hook build, uses the in-house checker: the
// jsonschema/v5 package is not linked, so its init cost is not paid.
func compileValidator(k Kind, _ []byte) (func(any) []FieldError, error) {
	c, err := checkerFor(k)
	if err != nil {
		return nil, err
	}
	return c.check, nil
}

// checkWrites: the hook build does not re-check what it writes (a check of
// window.json costs about a third of a millisecond, on every hook). The
// default build does, and the tests run in both builds; a document that was
// nevertheless invalid would be moved aside at the next load, never used.
const checkWrites = false

// FullValidator reports whether schemas are checked by
// santhosh-tekuri/jsonschema/v5 (false in the hook build).
const FullValidator = false

// validateBytes checks raw JSON in one pass (rawcheck.go).
func validateBytes(k Kind, raw []byte) []FieldError { return quickValidate(k, raw) }
