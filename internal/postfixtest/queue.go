package postfixtest

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"strconv"
	"strings"
)

// layOutQueue creates the queue directory and its subdirectories with the
// owners and modes Postfix declares for them in postfix-files (the lines
// "$queue_directory...:d:OWNER:GROUP:MODE:FLAGS"), as "postfix check"
// would. OWNER and GROUP are user and group names or parameters ($mail_owner,
// $setgid_group) that params names; a group "-" is the owner's own.
func layOutQueue(queue, postfixFiles string, params map[string]string) error {
	f, err := os.Open(postfixFiles)
	if err != nil {
		return fmt.Errorf("the list of Postfix's files: %v", err)
	}
	defer f.Close()
	made := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Split(sc.Text(), ":")
		if len(fields) < 5 || fields[1] != "d" || !strings.HasPrefix(fields[0], "$queue_directory") {
			continue
		}
		path := queue + strings.TrimPrefix(fields[0], "$queue_directory")
		mode, err := strconv.ParseUint(fields[4], 8, 32)
		if err != nil {
			return fmt.Errorf("%s: %q: want an octal mode, got %q", postfixFiles, sc.Text(), fields[4])
		}
		uid, gid, err := lookupIDs(expand(fields[2], params), expand(fields[3], params))
		if err != nil {
			return fmt.Errorf("%s: %q: %v", postfixFiles, sc.Text(), err)
		}
		if err := os.MkdirAll(path, 0o700); err != nil {
			return err
		}
		if err := os.Chown(path, uid, gid); err != nil {
			return err
		}
		// Chmod, not MkdirAll's mode: the umask must not take bits away.
		if err := os.Chmod(path, os.FileMode(mode)); err != nil {
			return err
		}
		made++
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %v", postfixFiles, err)
	}
	if made < 2 {
		return fmt.Errorf("%s: no $queue_directory entries: not Postfix's list of its files?", postfixFiles)
	}
	return nil
}

// expand returns the value of the parameter "$name" in params, or s.
func expand(s string, params map[string]string) string {
	if v, ok := params[strings.TrimPrefix(s, "$")]; ok && strings.HasPrefix(s, "$") {
		return v
	}
	return s
}

// lookupIDs returns the uid of the user owner and the gid of group; a
// group "-" or "" is the owner's own.
func lookupIDs(owner, group string) (uid, gid int, err error) {
	u, err := user.Lookup(owner)
	if err != nil {
		return 0, 0, fmt.Errorf("user %s: %v", owner, err)
	}
	uid, _ = strconv.Atoi(u.Uid)
	gid, _ = strconv.Atoi(u.Gid)
	if group != "" && group != "-" {
		g, err := user.LookupGroup(group)
		if err != nil {
			return 0, 0, fmt.Errorf("group %s: %v", group, err)
		}
		gid, _ = strconv.Atoi(g.Gid)
	}
	return uid, gid, nil
}

// postconf returns the values of main.cf parameters of this instance, by
// name.
func (p *Instance) postconf(names ...string) (map[string]string, error) {
	bin, err := lookProgram("postconf")
	if err != nil {
		return nil, err
	}
	out, err := exec.Command(bin, append([]string{"-c", p.etc, "-h"}, names...)...).Output()
	if err != nil {
		return nil, fmt.Errorf("postconf -h %s: %v", strings.Join(names, " "), err)
	}
	values := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(values) != len(names) {
		return nil, fmt.Errorf("postconf -h %s: %d values, want %d: %q", strings.Join(names, " "), len(values), len(names), out)
	}
	params := map[string]string{}
	for i, n := range names {
		params[n] = values[i]
	}
	return params, nil
}
