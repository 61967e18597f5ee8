package main

import "testing"

func TestCaught(t *testing.T) {
	m := Miss{Session: "s", Kind: "fail-loop", StartCall: 10, EvidentCall: 14}
	tests := []struct {
		name string
		miss Miss
		adv  Advisory
		want bool
	}{
		{"same kind at start", m, Advisory{Session: "s", Kind: "fail-loop", ToolCall: 10}, true},
		{"same kind at evident+3", m, Advisory{Session: "s", Kind: "fail-loop", ToolCall: 17}, true},
		{"after evident+3", m, Advisory{Session: "s", Kind: "fail-loop", ToolCall: 18}, false},
		{"before start", m, Advisory{Session: "s", Kind: "fail-loop", ToolCall: 9}, false},
		{"another loop kind matches", m, Advisory{Session: "s", Kind: "tool-loop", ToolCall: 12}, true},
		{"edit-revert matches a loop", m, Advisory{Session: "s", Kind: "edit-revert", ToolCall: 12}, true},
		{"pressure does not match a loop", m, Advisory{Session: "s", Kind: "pressure", ToolCall: 12}, false},
		{"other session", m, Advisory{Session: "t", Kind: "fail-loop", ToolCall: 12}, false},
		{"drift matches only drift", Miss{Session: "s", Kind: "drift", StartCall: 1, EvidentCall: 2}, Advisory{Session: "s", Kind: "fail-loop", ToolCall: 2}, false},
		{"drift caught by drift", Miss{Session: "s", Kind: "drift", StartCall: 1, EvidentCall: 2}, Advisory{Session: "s", Kind: "drift", ToolCall: 5}, true},
		{"risk caught by nothing else", Miss{Session: "s", Kind: "risk", StartCall: 1, EvidentCall: 2}, Advisory{Session: "s", Kind: "drift", ToolCall: 2}, false},
		// A prompt's advisory, numbered by the call before the prompt, reaches
		// the agent before the call after it: the call a prompt's moment is
		// marked at.
		{"a prompt's advisory counts at the next call", Miss{Session: "s", Kind: "repeat-complaint", StartCall: 7, EvidentCall: 7}, Advisory{Session: "s", Kind: "repeat-complaint", ToolCall: 6, Event: "UserPromptSubmit"}, true},
		{"another event's advisory at the call before: not caught", Miss{Session: "s", Kind: "repeat-complaint", StartCall: 7, EvidentCall: 7}, Advisory{Session: "s", Kind: "repeat-complaint", ToolCall: 6, Event: "Stop"}, false},
		{"a prompt's advisory past evident+3", m, Advisory{Session: "s", Kind: "fail-loop", ToolCall: 17, Event: "UserPromptSubmit"}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := caught(tc.miss, []Advisory{tc.adv}); got != tc.want {
				t.Errorf("caught = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestPrecision(t *testing.T) {
	rows := table([]Joined{{Advisory: Advisory{Session: "s", Kind: "drift", ToolCall: 1}, Label: "useful"}, {Advisory: Advisory{Session: "s", Kind: "drift", ToolCall: 2}, Label: "useless"}, {Advisory: Advisory{Session: "s", Kind: "drift", ToolCall: 3}, Label: "unsure"}, {Advisory: Advisory{Session: "s", Kind: "drift", ToolCall: 4}, Label: ""}}, 200)
	d := rows[0]
	if d.Kind != "drift" || d.Advisories != 4 || d.Labelled != 3 || d.Unlabelled != 1 || d.Unsure != 1 {
		t.Fatalf("row %+v", d)
	}
	if p := d.Precision(); p != 0.5 {
		t.Errorf("precision %v, want 0.5 (unsure and unlabelled left out)", p)
	}
	if d.Per100 != 2 {
		t.Errorf("per 100 = %v, want 2", d.Per100)
	}
}

// TestKappa checks Cohen's kappa against a hand computation: ten advisories,
// A says useful, useful, useful, useful, useful, false ×5 and B says useful
// ×4, false, useful, false ×4. po = 8/10; both judges say useful half the
// time, so pe = .5·.5 + .5·.5 = .5 and kappa = (.8 - .5) / (1 - .5) = .6.
func TestKappa(t *testing.T) {
	av := []string{"useful", "useful", "useful", "useful", "useful", "false", "false", "false", "false", "false"}
	bv := []string{"useful", "useful", "useful", "useful", "false", "useful", "false", "false", "false", "false"}
	var a, b []Label
	for i := range av {
		a = append(a, Label{Session: "s", Kind: "drift", ToolCall: i, Label: av[i], Judge: "A"})
		b = append(b, Label{Session: "s", Kind: "drift", ToolCall: i, Label: bv[i], Judge: "B"})
	}
	b = append(b, Label{Session: "s", Kind: "drift", ToolCall: 99, Label: "useful", Judge: "B"}) // A never saw it: left out
	ag := labelAgreement(a, b)
	if ag.N != 10 || ag.Agree != 8 || len(ag.Differ) != 2 {
		t.Fatalf("n %d agree %d differ %v, want 10, 8 and two", ag.N, ag.Agree, ag.Differ)
	}
	if d := ag.Kappa - 0.6; d > 1e-9 || d < -1e-9 {
		t.Errorf("kappa %.6f, want 0.6", ag.Kappa)
	}
	if k := kappa(3, 3, map[string]int{"useful": 3}, map[string]int{"useful": 3}); k != 1 {
		t.Errorf("total agreement on one label: kappa %v, want 1", k)
	}
}

func TestMissAgreement(t *testing.T) {
	a := []Miss{
		{Session: "s", Kind: "fail-loop", StartCall: 10, EvidentCall: 14},
		{Session: "s", Kind: "risk", StartCall: 30, EvidentCall: 31},
		{Session: "t", Kind: "drift", StartCall: 1, EvidentCall: 5},
	}
	b := []Miss{
		{Session: "s", Kind: "tool-loop", StartCall: 14, EvidentCall: 20}, // overlaps, loop kinds match
		{Session: "s", Kind: "drift", StartCall: 30, EvidentCall: 31},     // overlaps, kind does not
		{Session: "t", Kind: "drift", StartCall: 6, EvidentCall: 9},       // kind matches, calls do not
	}
	got := missAgreement(a, b)
	if want := (MissAgreement{Both: 1, OnlyA: 2, OnlyB: 2}); got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
}
