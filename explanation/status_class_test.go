package explanation

import "testing"

// TestStatusClassOfAnExpiryIsGaveUp: an expiry keeps its last temporary
// code but is permanent: it reads as given up, not as permanent nor as
// still being tried.
func TestStatusClassOfAnExpiryIsGaveUp(t *testing.T) {
	for _, c := range []struct {
		status    string
		permanent bool
		want      StatusClass
	}{
		{"4.4.7", true, StatusGaveUp},
		{"4.2.2", false, StatusTemporary},
		{"5.1.1", true, StatusPermanent},
		{"2.0.0", false, StatusSuccess},
	} {
		if got := StatusClassOf(c.status, c.permanent); got != c.want {
			t.Errorf("StatusClassOf(%s, %v) = %s, want %s", c.status, c.permanent, got, c.want)
		}
	}
}
