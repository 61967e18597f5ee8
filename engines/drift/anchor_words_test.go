package drift

import "testing"

// TestUnsegmentedGoal: a goal written mostly in a script without spaces
// between words is insufficient to measure against (its "words" are whole
// clauses); one in a spaced script, or mostly Latin with a few such
// letters, is not.
func TestUnsegmentedGoal(t *testing.T) {
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
	} {
		n := len(Words(tc.goal)) + 5 // enough tokens: only the script decides
		if got := NewAnchor(tc.goal, nil, n, c).Insufficient; got != tc.want {
			t.Errorf("%q: insufficient %v, want %v", tc.goal, got, tc.want)
		}
	}
}
