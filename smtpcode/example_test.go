package smtpcode_test

import (
	"fmt"

	"github.com/ndrmilter/ndrmilter/smtpcode"
)

func Example() {
	reply := "host mx.example.net[192.0.2.25] said: 550 5.0.0 <bob@example.net>... 5.7.1 Relaying denied"
	fmt.Println(smtpcode.FindReply(reply), smtpcode.FindStatus(reply))

	st, err := smtpcode.ParseStatus("4.7.650")
	if err != nil {
		panic(err)
	}
	fmt.Println(st.Class == smtpcode.ClassTransient, st.Subject, st.Detail)

	// A dotted number with subject 8 is a version here, not a status.
	fmt.Printf("%q\n", smtpcode.FindStatus("(Haraka/2.8.21) 550 5.8.1 refused"))

	a := smtpcode.ParseAction("Delayed")
	fmt.Println(a == smtpcode.ActionDelayed, a.Success())
	// Output:
	// 550 5.7.1
	// true 7 650
	// ""
	// true false
}
