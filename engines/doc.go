// Package engines holds Djinn's pure algorithms, one sub-package each.
//
// Nothing under engines/ touches files, the clock or a global random
// source: inputs in, numbers out. Each sub-package names its algorithm and
// the paper it comes from, and is verified against an independent oracle.
package engines
