package hmm

import (
	"math"
	"testing"
)

// FuzzInfer runs arbitrary symbol sequences, smoothing values and emission
// tables (including likelihood ratios down to 10^-320, below the package's
// floor) through the seed's model: valid options must give finite
// posteriors whose rows sum to 1, never an error; invalid ones an error.
func FuzzInfer(f *testing.F) {
	f.Add([]byte("aaaaabbbbbccccc"), 0.0, uint8(0))
	f.Add([]byte("edit edit read off off off"), 1e-6, uint8(1))
	f.Add([]byte{0, 1, 2, 3, 0, 1, 2, 3}, 0.5, uint8(3))
	f.Add([]byte{7}, -1.0, uint8(1))
	f.Add([]byte{}, 0.0, uint8(2))
	f.Fuzz(func(t *testing.T, obs []byte, eps float64, mode uint8) {
		if len(obs) > 4096 {
			obs = obs[:4096]
		}
		opts := Options[byte]{Epsilon: eps, FixedEmission: mode&2 != 0}
		if mode&1 != 0 {
			opts.Emission = map[byte][NumStates]float64{}
			for _, k := range obs {
				var e [NumStates]float64
				for i := range e {
					e[i] = math.Pow(10, -float64((int(k)*37+i*101+int(mode))%321))
				}
				opts.Emission[k] = e
			}
		}
		res, err := Infer(Seed(), obs, opts)
		validEps := eps == 0 || (eps > 0 && !math.IsInf(eps, 1))
		if !validEps {
			if err == nil {
				t.Fatalf("epsilon %v accepted", eps)
			}
			return
		}
		if err != nil {
			t.Fatalf("Infer: %v", err)
		}
		if len(res.Gamma) != len(obs) || len(res.Labels) != len(obs) {
			t.Fatalf("%d posteriors, %d labels for %d observations", len(res.Gamma), len(res.Labels), len(obs))
		}
		checkInvariants(t, res)
		_ = Tail(res.Labels)
	})
}
