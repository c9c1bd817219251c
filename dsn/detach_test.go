package dsn

import (
	"reflect"
	"testing"
)

// TestDetachCopiesEveryString checks that detach leaves no string of a
// Report pointing into memory it does not own: every string field, of the
// Report, its recipients and its original, set to a view of one buffer,
// keeps its value when the buffer is overwritten. A field added to Report
// and forgotten in detach fails here.
func TestDetachCopiesEveryString(t *testing.T) {
	buf := []byte("abcdefghijklmnopqrstuvwxyz")
	s := view(buf)
	var r Report
	r.Recipients = make([]Recipient, 2)
	n := fillStrings(reflect.ValueOf(&r).Elem(), s)
	if n < 20 {
		t.Fatalf("filled %d string fields, expected every one of Report's (20 or more)", n)
	}
	detach(&r)
	for i := range buf {
		buf[i] = '#'
	}
	if bad := stringsNot(reflect.ValueOf(r), "abcdefghijklmnopqrstuvwxyz", ""); bad != "" {
		t.Errorf("field %s changed with the memory it was read from: detach does not copy it", bad)
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
