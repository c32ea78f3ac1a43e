// The application ran on the module path and printed the right answer (27 takes 111 steps), and
// nothing else: no JVM warning, so moroutine needs no --enable-native-access or other flag.
// (Maven's own JVM may warn before the build starts; only exec:exec's output is the app's.)
def lines = new File(basedir, 'build.log').readLines()
def start = lines.findIndexOf { it.contains('--- exec-maven-plugin:') && it.contains(':exec (default-cli)') }
assert start >= 0
def output = lines.drop(start + 1)
def printed = output.take(output.findIndexOf { it.startsWith('[INFO] ---') }).findAll { !it.startsWith('[') }
assert printed == ['longest Collatz run from 1 to 30: 27, 111 steps']
