package drift

import "testing"

// TestInsufficientGoal: a goal written mostly in a script without spaces
// between words is insufficient to measure against (its "words" are whole
// clauses); one in a spaced script, or mostly Latin with a few such
// letters, is not. So is a goal with fewer than minGoalWords words of a
// topic or files: the function words and narration verbs every request
// has do not count.
func TestInsufficientGoal(t *testing.T) {
	c := DefaultConfig()
	for _, tc := range []struct {
		goal string
		want bool
	}{
		{"那就用内联，然后我希望你一次多提几个问，然后是使用Claude code内置的那个栏可选的，我希望以后问和答都这样更加好", true},
		{"ログイン画面のバリデーションを修正して、テストを追加してください", true},
		{"แก้ไขหน้าเข้าสู่ระบบและเพิ่มการทดสอบสำหรับการตรวจสอบความถูกต้อง", true},
		{"로그인 화면의 유효성 검사를 고치고 테스트를 추가해 주세요 그리고 문서도 갱신", false},
		{"Fix the login form validation in auth/login.go and add tests for the 用户名 field", false},
		{"Add connection pooling to db/pool.go with a configurable maximum and tests", false},
		{"can you fix my website so i can preview it", true},
		{"pls take a stab at the task outlines in the md file", true},
		{"always have agemys working always something they cam do", true},
		{"fix the lint errors and warnings, starting with src/alpha.go", false},
		{"add connection pooling to the database layer", false},
	} {
		n := len(Words(tc.goal)) + 5 // enough normalized tokens: the words decide
		if got := NewAnchor(tc.goal, nil, n, c).Insufficient; got != tc.want {
			t.Errorf("%q: insufficient %v, want %v", tc.goal, got, tc.want)
		}
	}
}

// TestMeasurable: a goal of enough words is measured; a short one only
// once a document has taught it minLearnedWords words, or, pointing at a
// ticket, once its first calls have.
func TestMeasurable(t *testing.T) {
	ten := []string{"a1", "b2", "c3", "d4", "e5", "f6", "g7", "h8", "i9", "j10"}
	for _, tc := range []struct {
		name string
		st   State
		want bool
	}{
		{"enough words", State{Insufficient: false}, true},
		{"short, nothing taught", State{Insufficient: true}, false},
		{"short, the first calls taught it", State{Insufficient: true, Vocab: ten}, false},
		{"short, a document taught it", State{Insufficient: true, AnchorTokens: ten}, true},
		{"a ticket, its first calls taught it", State{Insufficient: true, Idents: []string{"spotter-gqc"}, Vocab: ten}, true},
		{"a ticket, not yet taught", State{Insufficient: true, Idents: []string{"spotter-gqc"}, Vocab: ten[:3]}, false},
	} {
		if got := tc.st.measurable(); got != tc.want {
			t.Errorf("%s: measurable %v, want %v", tc.name, got, tc.want)
		}
	}
}
