package dsn

import (
	"reflect"
	"testing"
)

// TestFinalReportOwnsItsMemory checks that the Report Parse returns
// points into no memory it does not own: every string field, of the
// Report, its recipients and its original, set to a view of one buffer,
// and its lists in arrays of the caller, keep their values when the buffer
// and the arrays are overwritten. A field added to Report and forgotten in
// detach fails here.
func TestFinalReportOwnsItsMemory(t *testing.T) {
	for _, n := range []int{1, 3} { // one recipient (in the report's block) and several
		buf := []byte("abcdefghijklmnopqrstuvwxyz")
		s := view(buf)
		var from Report
		recs := make([]Recipient, n)
		from.Recipients = recs
		filled := fillStrings(reflect.ValueOf(&from).Elem(), s)
		if filled < 20 {
			t.Fatalf("filled %d string fields, expected every one of Report's (20 or more)", filled)
		}
		r := finalReport(&from)
		for i := range buf {
			buf[i] = '#'
		}
		for i := range recs {
			clear(recs[i].Aliases)
			recs[i] = Recipient{}
		}
		clear(from.Original.Received)
		if len(r.Recipients) != n {
			t.Fatalf("%d recipients after finalReport, want %d", len(r.Recipients), n)
		}
		if bad := stringsNot(reflect.ValueOf(*r), "abcdefghijklmnopqrstuvwxyz", ""); bad != "" {
			t.Errorf("%d recipients: field %s changed with the memory it was read from: finalReport does not copy it", n, bad)
		}
	}
}

// fillStrings sets every string reachable in v (slices of strings get two
// elements) to s and returns how many it set.
func fillStrings(v reflect.Value, s string) int {
	switch v.Kind() {
	case reflect.String:
		v.SetString(s)
		return 1
	case reflect.Struct:
		n := 0
		for i := 0; i < v.NumField(); i++ {
			n += fillStrings(v.Field(i), s)
		}
		return n
	case reflect.Slice:
		if v.Len() == 0 && v.Type().Elem().Kind() == reflect.String {
			v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		}
		n := 0
		for i := 0; i < v.Len(); i++ {
			n += fillStrings(v.Index(i), s)
		}
		return n
	}
	return 0
}

// stringsNot returns the path of the first string in v that is not want.
func stringsNot(v reflect.Value, want, path string) string {
	switch v.Kind() {
	case reflect.String:
		if v.String() != want {
			return path
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if bad := stringsNot(v.Field(i), want, path+"."+v.Type().Field(i).Name); bad != "" {
				return bad
			}
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			if bad := stringsNot(v.Index(i), want, path+"[]"); bad != "" {
				return bad
			}
		}
	}
	return ""
}
