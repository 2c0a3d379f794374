package health

import "strings"

// Argo CD matches wildcards twice, with two libraries and two syntaxes; both
// are mirrored here so that a kind finds the same check as in Argo CD.

// matchFolder reports whether a catalogue folder such as "_.crossplane.io/_"
// covers key ("pkg.crossplane.io/Provider"). Argo CD treats every "_" in a
// folder path as "*" and matches with doublestar: "*" spans any run of
// characters within one path segment, and the segment counts must agree, so
// "_.crossplane.io/_" covers every kind of every group ending in
// ".crossplane.io" but not the group "crossplane.io" itself, and no core
// kind. (No folder uses doublestar's other syntax, so it is not supported.)
func matchFolder(dir, key string) bool {
	ps := strings.Split(dir, "/")
	ks := strings.Split(key, "/")
	if len(ps) != len(ks) {
		return false
	}
	for i := range ps {
		if !matchGlob(strings.ReplaceAll(escapeGlob(ps[i]), "_", "*"), ks[i]) {
			return false
		}
	}
	return true
}

// escapeGlob quotes matchGlob's special characters, so that in a folder
// name only "_" is a wildcard.
func escapeGlob(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[]{}\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// isGlob reports whether a ConfigMap key holds glob syntax, so that it is
// tried as a pattern rather than only as an exact key.
func isGlob(key string) bool { return strings.ContainsAny(key, `*?[{\`) }

// matchGlob matches a ConfigMap key written as a glob ("*.aws.crossplane.io/*",
// "ec2.aws.crossplane.io/*", the "*/*" that resource.customizations.health.all
// stands for) against "group/Kind", with the syntax of github.com/gobwas/glob
// that Argo CD uses, compiled with no separator: "*" spans any characters,
// "/" included; "?" is one character; "[abc]", "[a-z]", "[!a-z]" are
// classes; "{a,b}" are alternatives; "\" quotes the next character. A
// malformed pattern matches nothing, as in Argo CD (which logs it).
func matchGlob(pattern, text string) bool {
	alts, ok := expandBraces(pattern, 0)
	if !ok {
		return false
	}
	t := []rune(text)
	for _, alt := range alts {
		m, ok := matchRunes([]rune(alt), t)
		if !ok {
			return false
		}
		if m {
			return true
		}
	}
	return false
}

// maxAlternatives bounds brace expansion, so a hostile key cannot blow up.
const maxAlternatives = 1024

// expandBraces turns "a{b,c}d" into "abd" and "acd", nested braces included.
func expandBraces(p string, depth int) ([]string, bool) {
	if depth > 16 {
		return nil, false
	}
	open := -1
	for i := 0; i < len(p); i++ {
		if p[i] == '\\' {
			i++
			continue
		}
		if p[i] == '{' {
			open = i
			break
		}
		if p[i] == '}' {
			return nil, false
		}
	}
	if open < 0 {
		return []string{p}, true
	}
	var alts []string
	start, level := open+1, 0
	for i := open + 1; i < len(p); i++ {
		switch p[i] {
		case '\\':
			i++
		case '{':
			level++
		case '}':
			if level > 0 {
				level--
				continue
			}
			alts = append(alts, p[start:i])
			var out []string
			for _, a := range alts {
				more, ok := expandBraces(p[:open]+a+p[i+1:], depth+1)
				if !ok || len(out)+len(more) > maxAlternatives {
					return nil, false
				}
				out = append(out, more...)
			}
			return out, true
		case ',':
			if level == 0 {
				alts = append(alts, p[start:i])
				start = i + 1
			}
		}
	}
	return nil, false // "{" never closed
}

// matchRunes matches a brace-free pattern; the second result is false when
// the pattern is malformed.
func matchRunes(p, s []rune) (bool, bool) {
	px, sx := 0, 0
	starP, starS := -1, -1
	for px < len(p) || sx < len(s) {
		if px < len(p) {
			switch p[px] {
			case '*':
				starP, starS = px, sx
				px++
				continue
			case '?':
				if sx < len(s) {
					px, sx = px+1, sx+1
					continue
				}
			case '[':
				var c rune
				if sx < len(s) {
					c = s[sx]
				}
				n, in, ok := matchClass(p[px:], c, sx < len(s))
				if !ok {
					return false, false
				}
				if in {
					px, sx = px+n, sx+1
					continue
				}
			case '\\':
				if px+1 >= len(p) {
					return false, false
				}
				if sx < len(s) && p[px+1] == s[sx] {
					px, sx = px+2, sx+1
					continue
				}
			default:
				if sx < len(s) && p[px] == s[sx] {
					px, sx = px+1, sx+1
					continue
				}
			}
		}
		if starP >= 0 && starS < len(s) {
			starS++
			px, sx = starP+1, starS
			continue
		}
		return false, true
	}
	return true, true
}

// matchClass reads the class at the start of p ("[...]") and tells whether
// c is in it (never when have is false: no character left). n is the
// class's length in p; ok is false when the class is malformed.
func matchClass(p []rune, c rune, have bool) (n int, in bool, ok bool) {
	i := 1
	negate := i < len(p) && p[i] == '!'
	if negate {
		i++
	}
	for members := 0; ; members++ {
		if i >= len(p) {
			return 0, false, false
		}
		if p[i] == ']' && members > 0 {
			break
		}
		lo := p[i]
		if lo == '\\' {
			if i++; i >= len(p) {
				return 0, false, false
			}
			lo = p[i]
		}
		hi := lo
		if i+2 < len(p) && p[i+1] == '-' && p[i+2] != ']' {
			hi = p[i+2]
			i += 2
		}
		if lo <= c && c <= hi {
			in = true
		}
		i++
	}
	return i + 1, have && in != negate, true
}
