#!/usr/bin/env python3
# Removes the EOPNOTSUPP stubs of the named verbs from verbs/unsupported.c,
# for the commit that brings their real implementation.
import re
import sys

path = 'verbs/unsupported.c'
src = open(path).read()
for name in sys.argv[1:]:
    # A definition: return type line(s), the name, a parameter list, a body
    # that closes at column 0, plus any comment block right above it.
    pat = re.compile(r'(/\*(?:(?!\*/).)*?\*/\n)?(^[^\n;{}#]*\b' +
                     re.escape(name) + r'\((?:[^;{])*?\)\n\{.*?^\}\n\n?)',
                     re.S | re.M)
    m = pat.search(src)
    if not m:
        sys.exit('drop-stubs: %s: no stub found' % name)
    src = src[:m.start()] + src[m.end():]
open(path, 'w').write(src)
