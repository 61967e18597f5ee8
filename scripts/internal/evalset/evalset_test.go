package evalset

import "testing"

func TestJoin(t *testing.T) {
	tests := []struct {
		name   string
		advs   []Advisory
		labels []Label
		want   []string
	}{
		{"exact key", []Advisory{{"s", "drift", 5, "", "[djinn:drift] x", ""}}, []Label{{Session: "s", Kind: "drift", ToolCall: 5, Label: "false"}}, []string{"false"}},
		{"other call is unlabelled", []Advisory{{"s", "drift", 6, "", "x", ""}}, []Label{{Session: "s", Kind: "drift", ToolCall: 5, Label: "false"}}, []string{""}},
		{"other kind is unlabelled", []Advisory{{"s", "pressure", 5, "", "x", ""}}, []Label{{Session: "s", Kind: "drift", ToolCall: 5, Label: "useful"}}, []string{""}},
		{"other session is unlabelled", []Advisory{{"t", "drift", 5, "", "x", ""}}, []Label{{Session: "s", Kind: "drift", ToolCall: 5, Label: "useful"}}, []string{""}},
		{"same key twice, prefix decides", []Advisory{{"s", "pressure", 9, "", "B text", ""}, {"s", "pressure", 9, "", "A text", ""}},
			[]Label{{Session: "s", Kind: "pressure", ToolCall: 9, TextPrefix: "A", Label: "useful"}, {Session: "s", Kind: "pressure", ToolCall: 9, TextPrefix: "B", Label: "false"}},
			[]string{"false", "useful"}},
		{"each label used once", []Advisory{{"s", "drift", 5, "", "x", ""}, {"s", "drift", 5, "", "x", ""}}, []Label{{Session: "s", Kind: "drift", ToolCall: 5, Label: "useless"}}, []string{"useless", ""}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Join(tc.advs, tc.labels)
			if len(got) != len(tc.want) {
				t.Fatalf("got %d joined, want %d", len(got), len(tc.want))
			}
			for i, j := range got {
				if j.Label != tc.want[i] {
					t.Errorf("advisory %d: label %q, want %q", i, j.Label, tc.want[i])
				}
			}
		})
	}
}
