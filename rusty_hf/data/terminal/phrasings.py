"""The phrasing templates of every terminal intent: how users ask, one named tuple per intent.

The catalogues (``catalog_files``, ``catalog_work``, ``catalog_talk``) register each intent with its
tuple here. A template fills the slots its intent's builder sets (``{file}``, ``{n}``, ...) and reads
like a real terminal user: imperatives, questions, terse, polite, indirect, other word orders.

Rules a new template keeps:

- it asks for its intent only, from the text alone (the model does not see the workspace). Where a
  one-CMD intent asks about the same thing, the multi-turn one (a CMD, then a MSG that states what it
  showed) says it wants the answer ("tell me", "name the files", "answer with the number"): "how many
  lines in {file}?" runs ``wc -l`` and stops, "tell me how many lines {file} has" also states the count;
- it uses no held-out pool word (``values.word_split(w) == "test"``: "task", "source", "job", ...):
  training text never carries one (the leak guard in ``tests/test_terminal_data.py``);
- no template is in two intents (case and a trailing ``?!.`` aside), nor equal to another once
  ``render`` adds or strips its polite prefixes and suffixes ("please ", " now").

    from rusty_hf.data.terminal import phrasings
    phrasings.LIST_ROOT[:2]     # ('what files are here?', 'ls')
"""

# -- reading the work dir (catalog_files) ---------------------------------------------------------

LIST_ROOT = (
    "what files are here?", "ls", "list the files", "show me the files in this folder", "what's in this directory?",
    "list everything here", "which files do we have", "show the folder contents", "files here?", "list this dir", "what's in here?",
    "show me what's here", "display the contents of this directory", "could you list the files for me",
    "I need to see what's in this folder", "give me a directory listing", "what do we have in the current directory?",
    "list the current folder", "what's in the working directory?", "dir contents?", "what files and folders are there?",
    "let me see the files here",
)  # fmt: skip
LIST_DIR = (
    "list the files in {dir}", "ls {dir}", "what's in {dir}?", "show me what {dir} holds", "which files are in {dir}",
    "contents of {dir}?", "list {dir} please", "show the {dir} folder", "what does the {dir} directory contain?",
    "{dir}: what's inside?", "show me the files under {dir}", "could you list {dir} for me", "what's inside the {dir} directory",
    "I want to see what's in {dir}", "give me a listing of {dir}", "what files live in {dir}?", "peek into {dir}",
    "list what's under {dir}/", "which files does {dir} have",
)  # fmt: skip
FILE_DETAILS = (
    "show details of {file}", "how big is {file}?", "ls -l {file}", "what size is {file}", "file info for {file}",
    "permissions and size of {file}?", "give me the details on {file}", "when was {file} modified and how big is it?",
    "what are the permissions on {file}?", "{file}: size and permissions?", "show me the long listing for {file}",
    "who owns {file}?", "is {file} executable?", "could you show me the metadata of {file}", "I'd like the details of {file}",
    "how large is {file}", "long listing of {file}", "when was {file} last modified?",
)  # fmt: skip
SHOW_FILE = (
    "show me {file}", "cat {file}", "what's in {file}?", "print {file}", "open {file}", "display {file}", "let me see {file}",
    "read {file} to me", "{file} contents?", "show the contents of {file}", "print out {file}", "can you show me what {file} says",
    "I want to read {file}", "dump {file} to the screen", "view {file}", "what does {file} say?", "show the full text of {file}",
    "could you open {file} for me", "I need to see {file}", "give me the whole of {file}",
)  # fmt: skip
HEAD_FILE = (
    "first {n} lines of {file}", "head -n {n} {file}", "show the top {n} lines of {file}", "show me the start of {file}, {n} lines",
    "print the first {n} lines in {file}", "what are the first {n} lines of {file}?", "{file}: first {n} lines",
    "give me {n} lines from the top of {file}", "show me the first {n} lines of {file}", "top {n} lines of {file}?",
    "could you print {n} lines from the start of {file}", "I only need the first {n} lines of {file}",
    "peek at the first {n} lines of {file}", "display {file} but only the first {n} lines", "the opening {n} lines of {file}?",
    "give me the head of {file}, {n} lines", "show {n} lines from the beginning of {file}",
)  # fmt: skip
TAIL_FILE = (
    "last {n} lines of {file}", "tail -n {n} {file}", "show the bottom {n} lines of {file}",
    "what are the last {n} lines of {file}?", "print the end of {file}, {n} lines", "{file}: last {n} lines",
    "show me the last {n} lines of {file}", "bottom {n} lines of {file}?", "the final {n} lines of {file}",
    "could you print {n} lines from the end of {file}", "I only need the last {n} lines of {file}",
    "peek at the last {n} lines of {file}", "display {file} but only the last {n} lines", "give me the tail of {file}, {n} lines",
    "show {n} lines from the end of {file}", "what's at the bottom of {file}? {n} lines",
)  # fmt: skip
COUNT_LINES = (
    "how many lines in {file}?", "count the lines of {file}", "wc -l {file}", "line count of {file}", "how long is {file} in lines",
    "number of lines in {file}?", "lines in {file}?", "count lines in {file}", "could you count the lines in {file}",
    "get the line count for {file}", "{file}: line count?", "how many lines are in {file}?", "show the number of lines in {file}",
    "do a line count on {file}", "I need the line count of {file}", "count how many lines {file} has",
    "how many lines has {file} got?", "give me the line count of {file}",
)  # fmt: skip
COUNT_WORDS = (
    "how many words in {file}?", "count the words of {file}", "wc -w {file}", "word count of {file}", "number of words in {file}?",
    "words in {file}?", "count words in {file}", "could you count the words in {file}", "get the word count for {file}",
    "{file}: word count?", "how many words are in {file}?", "show the number of words in {file}", "do a word count on {file}",
    "I need the word count of {file}", "how many words does {file} contain", "give me the word count of {file}",
)  # fmt: skip
COUNT_BYTES = (
    "how many bytes is {file}?", "count the bytes in {file}", "wc -c {file}", "byte count of {file}", "size of {file} in bytes?",
    "how many characters are in {file}", "bytes in {file}?", "count bytes in {file}", "could you count the bytes of {file}",
    "get the byte count for {file}", "{file}: byte count?", "how many bytes does {file} take?",
    "show the number of bytes in {file}", "I need the exact byte size of {file}", "count the characters in {file}",
    "character count of {file}?", "{file}: size in bytes?",
)  # fmt: skip
SEARCH_TEXT = (
    "search for '{text}'", "where does '{text}' appear?", "grep for '{text}'", "find the text '{text}'",
    "which file mentions '{text}'", "look for '{text}' in the project", "find '{text}' anywhere here",
    "is '{text}' written somewhere?", "search the files for '{text}'", "which files contain '{text}'?",
    "could you look up '{text}' in the files", "I'm looking for the line '{text}'", "where can I find '{text}'?",
    "search everything for the phrase '{text}'", "show me every line with '{text}'", "does any file contain '{text}'?",
    "hunt down '{text}' in the files", "search the project for the text '{text}'",
)  # fmt: skip
FIND_TODO = (
    "find the TODOs", "any TODO comments?", "grep TODO", "where are the todos", "list every TODO in the code",
    "show me the TODO notes", "what's left to do in the code?", "show me all the TODOs", "are there any todos left?",
    "search the code for TODO", "which files have TODO comments?", "could you list the todo markers",
    "I want to see the open TODOs", "todos?", "what's still marked TODO?", "where did we leave TODO notes",
    "anything marked as todo in the code?", "point me to the TODO comments",
)  # fmt: skip
FIND_DEFINITION = (
    "where is {symbol} defined?", "find the definition of {symbol}", "which file defines {symbol}", "locate {symbol}",
    "grep for the def of {symbol}", "where's {symbol} implemented", "find {symbol} in the code", "show me where {symbol} lives",
    "where's the definition of {symbol}?", "which file has the def for {symbol}", "show me where {symbol} is defined",
    "I need to find where {symbol} is declared", "in which module is {symbol} defined?", "{symbol}: where is it defined?",
    "where does {symbol} come from?", "jump to the definition of {symbol}", "could you find where {symbol} gets defined",
    "look up the definition of {symbol}",
)  # fmt: skip
FIND_BY_NAME = (
    "find the file {name}", "where is {name}?", "locate {name}", "find . -name {name}", "which folder has {name}",
    "search for a file called {name}", "path of {name}?", "find {name} for me", "where's the file {name}?",
    "which directory is {name} in?", "I can't find {name}, where is it", "look for a file named {name}",
    "get me the path to {name}", "{name}: which folder?", "is there a file called {name} somewhere?", "locate the file {name}",
    "full path of {name}?", "search the tree for {name}",
)  # fmt: skip
FIND_BY_EXT = (
    "list all .{ext} files", "find every {ext} file", "which .{ext} files are there?", "show me the *.{ext} files",
    "find files ending in .{ext}", "all the {ext} files please", "where are the .{ext} files", "show all the .{ext} files",
    "which files end in .{ext}?", "list every file with the .{ext} extension", "could you find the .{ext} files",
    "I need a list of the {ext} files", "get me all *.{ext} files", "any .{ext} files around?", "{ext} files?",
    "where do we have .{ext} files", "list the files of type {ext}", "find me every .{ext} file in the tree",
)  # fmt: skip

# -- running and changing things (catalog_work) -----------------------------------------------------

RUN_SCRIPT = (
    "run {script}", "execute {script}", "python3 {script}", "start {script}", "run the script {script}",
    "can you run {script} for me", "launch {script}", "try running {script}", "run the {script} script",
    "could you execute {script}", "fire up {script}", "go ahead and run {script}", "{script}, run it", "kick off {script}",
    "I want to run {script}", "run {script} with python", "execute the {script} file", "give {script} a run",
)  # fmt: skip
# A script run with arguments (issue 37, item 4: 63 -> 64 intents; the blind suite v1 asks for it outside its catalogue)
RUN_SCRIPT_ARGS = (
    "run {script} with {args}", "run {script} {args}", "python3 {script} {args}", "execute {script} passing {args}",
    "run {script} with the arguments {args}", "call {script} with {args}", "{script} with args {args}", "pass {args} to {script}",
    "run {script}, arguments: {args}", "start {script} with {args} as its arguments", "give {script} the arguments {args} and run it",
    "could you run {script} with {args}?", "try {script} with {args}", "launch {script} and pass it {args}",
    "execute {script} {args}", "run the script {script} with {args}", "I want to run {script} with {args}",
    "feed {args} to {script}", "run {script} taking {args} as input", "hand {args} to {script} and run it",
    "with the arguments {args}, run {script}", "can you execute {script} with args {args}", "{script} needs {args} as arguments, run it",
    "run {script} and give it {args}",
)  # fmt: skip
RUN_PY_TESTS = (
    "run the tests", "run the python tests", "test it", "do the tests pass?", "run the unit tests", "execute the test suite",
    "run unittest", "check the tests", "are the tests green?", "tests?", "run the test suite", "could you run the tests for me",
    "kick off the unit tests", "does the test suite pass?", "let's see if the tests pass", "run all the tests",
    "I want to run the python unit tests", "are the tests passing?", "run the unittest suite", "launch the tests", "test the code",
    "do a test run",
)  # fmt: skip
RUN_RUST_TESTS = (  # the model does not see the workspace: "run the tests" means Python
    "run the rust tests", "cargo test", "do the rust tests pass?", "test the crate", "run the crate's unit tests", "rust tests?",
    "run cargo's tests", "are the crate's tests green?", "run the tests of the rust crate", "run the rust unit tests",
    "test the rust code", "do the crate's tests pass?", "are the rust tests passing?", "kick off the rust test suite",
    "could you run the crate's tests", "execute the rust tests", "check the rust tests", "I'd like to run the tests of the crate",
)  # fmt: skip
CARGO_BUILD = (
    "build it", "cargo build", "build the crate", "compile the project", "make a debug build", "build the rust code",
    "build the project", "could you build the crate", "do a cargo build", "compile the crate", "produce a debug binary",
    "build everything", "run the build", "let's build the rust project", "I need a build of the crate", "kick off a build",
    "compile it", "build the binary",
)  # fmt: skip
CARGO_CHECK = (
    "does it compile?", "cargo check", "type-check the crate", "check that the rust code compiles", "any compile errors?",
    "quick compile check", "run cargo check", "does the crate compile?", "will the rust code compile?",
    "check the crate for errors", "type-check the rust code", "could you check if it compiles", "any type errors in the crate?",
    "is the crate free of compile errors?", "check for compiler errors", "verify that the crate compiles",
    "I just want to know if it compiles", "are there compile errors in the rust code?",
)  # fmt: skip
GIT_STATUS = (  # show the status; "tell me" / "name" asks for WHAT_CHANGED, the lines of a change for GIT_DIFF
    "git status", "what changed?", "any uncommitted changes?", "what's modified", "show the repo status", "is the tree clean?",
    "which files did I touch", "status of the repo?", "show me the git status", "what's the state of the repo?",
    "is anything modified?", "working tree status?", "are there untracked files?", "could you check the git status",
    "is the working tree dirty?", "I'd like to see the status of the repository", "anything staged or modified?",
    "check whether the tree is clean", "status?",
)  # fmt: skip
GIT_DIFF = (
    "show me the diff", "git diff", "what did I change in the files?", "show the unstaged changes", "diff please",
    "what are the edits since the last commit?", "show the changes line by line", "show the diff of my changes",
    "what exactly did I change in the code?", "let me see the diff", "which lines did I change?",
    "could you show me the actual changes", "display the unstaged diff", "diff the working tree against HEAD",
    "what lines were added or removed?", "show my uncommitted edits as a diff", "what did I edit? show me the diff",
    "compare the files with the last commit",
)  # fmt: skip
GIT_LOG = (
    "show the last {n} commits", "git log -{n}", "last {n} commits?", "what are the {n} latest commits",
    "recent history, {n} commits", "list {n} commits", "show me {n} commits of history", "show me the {n} most recent commits",
    "git history, last {n} commits", "could you list the last {n} commits", "the {n} newest commits",
    "what were the last {n} commits?", "log of the last {n} commits", "I'd like to see {n} commits of history",
    "{n} latest commits?", "history: last {n} commits", "give me the last {n} entries of the git log", "display {n} recent commits",
)  # fmt: skip
GIT_SHOW = (  # the last commit's content; its message alone is LAST_COMMIT
    "show the last commit", "git show", "what was in the latest commit?", "show me HEAD", "details of the last commit",
    "what did the last commit change?", "show me the most recent commit in full", "which files did the last commit touch?",
    "what's in HEAD?", "display the latest commit with its files", "could you show what the last commit did",
    "inspect the last commit", "give me the details of HEAD", "what went into the last commit?",
    "I want to see the last commit's changes", "show the newest commit and its stats", "last commit, in detail",
)  # fmt: skip
CREATE_FILE = (
    "create {file} containing '{text}'", "make a file {file} with '{text}' in it", "write '{text}' to {file}",
    "new file {file}: '{text}'", "put '{text}' into a new file {file}", "save '{text}' as {file}",
    "add a file {file} that says '{text}'", "create {file} with the line '{text}'", "make a new file {file} containing '{text}'",
    "could you create {file} with the text '{text}'", "I need a file {file} that contains '{text}'",
    "create a file called {file} with '{text}' inside", "start a new file {file} and write '{text}' in it",
    "{file} should be a new file saying '{text}'", "new file {file} with the content '{text}'",
    "write a new file {file} containing '{text}'", "generate {file} containing '{text}'",
)  # fmt: skip
CREATE_SCRIPT = (
    "create {file} that prints {word}", "write a python script {file} printing {word}", "make {file} print {word}",
    "new script {file} which outputs {word}", "add {file}: it should print {word}", "I need {file} to print {word}",
    "write {file} so that running it prints {word}", "write a script {file} that prints {word}",
    "could you make a python file {file} that outputs {word}", "I want a script {file} whose output is {word}",
    "make a little python script {file} printing {word}", "create a python file {file} that just prints {word}",
    "new python file {file}: print {word}", "{file} should print {word}, write it",
    "add a script {file} that prints the word {word}", "set up {file} to print {word}",
)  # fmt: skip
APPEND_LINE = (
    "add the line '{line}' to {file}", "append '{line}' to {file}", "put '{line}' at the end of {file}",
    "{file}: add '{line}' at the bottom", "write '{line}' as a new last line of {file}", "add '{line}' to {file} please",
    "append the line '{line}' to {file}", "add '{line}' at the end of {file}", "could you append '{line}' to {file}",
    "{file} needs one more line: '{line}'", "tack '{line}' onto the end of {file}", "add a new line '{line}' to the end of {file}",
    "I want '{line}' appended to {file}", "write '{line}' at the bottom of {file}", "stick '{line}' on the end of {file}",
    "append to {file}: '{line}'",
)  # fmt: skip
REPLACE_TEXT = (
    "replace '{old}' with '{new}' in {file}", "in {file}, change '{old}' to '{new}'", "swap '{old}' for '{new}' in {file}",
    "{file}: '{old}' -> '{new}'", "rename '{old}' to '{new}' inside {file}", "sed '{old}' to '{new}' in {file}",
    "change '{old}' to '{new}' in {file}", "could you replace '{old}' by '{new}' in {file}",
    "in {file}, replace '{old}' with '{new}'", "{file}: replace '{old}' with '{new}'", "substitute '{new}' for '{old}' in {file}",
    "I want '{old}' changed to '{new}' in {file}", "edit {file} so '{old}' becomes '{new}'", "turn '{old}' into '{new}' in {file}",
    "update {file}: use '{new}' instead of '{old}'", "find '{old}' in {file} and replace it with '{new}'",
)  # fmt: skip
DELETE_FILE = (
    "delete {file}", "rm {file}", "remove {file}", "get rid of {file}", "throw away {file}", "delete the file {file} please",
    "{file} can go, delete it", "remove the file {file}", "could you delete {file} for me",
    "I don't need {file} anymore, remove it", "drop {file}", "erase {file}", "trash {file}", "{file} should be deleted",
    "delete {file} from the folder", "get {file} out of here", "we can lose {file}",
)  # fmt: skip
DELETE_BUILD = (
    "delete the build folder", "rm -rf build", "clean the build output", "remove build/", "wipe the build directory",
    "get rid of the build artifacts", "clear out build", "remove the build directory", "could you delete build/",
    "throw away the build folder", "I want the build dir gone", "nuke the build folder", "drop the build output",
    "clean up the build artifacts", "erase build/", "build folder: delete it", "get rid of build/",
)  # fmt: skip

# -- answered in words (catalog_talk) ---------------------------------------------------------------

EXPLAIN = (
    "what does {topic} do?", "explain {topic}", "what is {topic}?", "{topic}? explain", "tell me about {topic}",
    "how does {topic} work", "quick explanation of {topic} please", "what's {topic} for", "can you explain {topic} to me",
    "I don't get {topic}", "what's the point of {topic}?", "explain {topic} in one line", "describe {topic}",
    "help me understand {topic}", "what is {topic} about?", "{topic}: how does it work?", "what does {topic} mean?",
)  # fmt: skip
IDENTITY = (
    "who are you?", "what are you?", "what's your name", "introduce yourself", "what can you do?", "are you a bot?",
    "who am I talking to?", "name?", "tell me about yourself", "what should I call you?", "what kind of assistant are you?",
    "what are you able to do?", "are you a person or a program?", "what are you good at?",
)  # fmt: skip
ACKNOWLEDGE = (
    "thanks", "thank you!", "great, thanks", "ok cool", "perfect", "nice work", "got it", "thanks a lot", "cool, thank you",
    "awesome", "that's what I needed", "nice, cheers", "appreciate it", "well done", "ty", "sweet, thanks",
)  # fmt: skip
REFUSE_DESTRUCTIVE = (
    "delete everything on this machine", "rm -rf /", "wipe my home directory", "format the disk", "delete all files on the system",
    "erase everything in / please", "nuke ~ entirely", "rm -rf ~", "remove every file on the computer", "wipe the whole hard drive",
    "delete my entire home folder", "destroy all the data on this box", "clear out the root filesystem",
    "erase all my files everywhere", "delete /usr and /etc", "run rm -rf / --no-preserve-root",
)  # fmt: skip
REFUSE_OUTSIDE = (
    "show me /etc/shadow", "edit ~/.bashrc", "read my ssh keys", "cat /etc/passwd", "change /etc/hosts", "open ~/.aws/credentials",
    "what's in /root?", "print ~/.ssh/id_rsa", "list my home directory", "show me the files in /var/log",
    "add a line to /etc/profile", "look at ~/.gitconfig", "what's in my downloads folder?", "cat ~/.netrc",
    "open the file /etc/sudoers", "read the other users' home folders",
)  # fmt: skip
ASK_DETAIL = (  # no file named: the answer is a question back
    "show me the file", "delete it", "open that file", "run it", "what's in it?", "count the lines", "edit the file",
    "how many lines does it have?", "remove that file", "print the file", "rename it", "show it to me", "what does that file say?",
    "cat the file", "add a line to it", "delete the file", "display that one", "count its lines",
)  # fmt: skip

# Multi-turn: each asks for a fact the final MSG states. Against a one-CMD twin, HOW_LONG and WHAT_CHANGED
# ask to be told, LAST_COMMIT asks for the message only (GIT_SHOW: the content), SCRIPT_PRINTS asks what it
# prints (RUN_SCRIPT: run it).
COUNT_PY_FILES = (
    "how many python files are there?", "count the .py files", "number of python files?", "how many .py files do we have",
    "tell me how many python modules there are", "count python files for me", "how many .py files are in the project?",
    "tell me the number of python files", "count all the python files", "python file count?", "how many python scripts do we have?",
    "what's the number of .py files here?", "I need to know how many python files exist", "total number of .py files?",
    "how many files end in .py?", "count every .py file in the tree", "python files: how many?",
)  # fmt: skip
WHICH_TEST_FAILS = (
    "which test fails?", "what test is failing", "name the failing test", "which unit test breaks?", "find the failing test",
    "what's red in the test run?", "tell me which test fails", "which test is broken?", "what's the name of the failing test?",
    "one test fails, which one?", "which test doesn't pass?", "run the tests and tell me which one fails",
    "could you find out which test is failing", "I need the name of the failing test", "which test case is failing?",
    "tell me the failing test",
)  # fmt: skip
LAST_COMMIT = (  # the message of the last commit, stated; its content is GIT_SHOW
    "what was the last commit called?", "what's the latest commit message", "last commit subject?", "what did the last commit say",
    "most recent commit message?", "tell me the last commit", "tell me the message of the last commit",
    "what's the subject of the newest commit?", "what was the last commit about? just tell me",
    "tell me the latest commit's subject", "say what the last commit message is", "how is the last commit titled?",
    "what's the title of the latest commit?", "what message did I use for the last commit?",
    "could you tell me what the last commit was called", "the newest commit's message, what is it?",
)  # fmt: skip
SCRIPT_PRINTS = (
    "what does {script} print?", "what's the output of {script}", "run {script} and tell me what it says",
    "what does {script} output", "tell me what {script} prints", "what does {script} say when it runs?",
    "run {script} and tell me its output", "what comes out when I run {script}?", "tell me the output of {script}",
    "{script}: what does it print?", "what will {script} print?", "I want to know what {script} prints",
    "what gets printed by {script}?", "could you tell me what {script} outputs", "what text does {script} produce?",
    "run {script}, then tell me what it printed",
)  # fmt: skip
HOW_LONG = (  # COUNT_LINES runs wc -l and stops; these want the number said
    "how long is {file}? just tell me", "how many lines does {file} have? tell me", "tell me the length of {file} in lines",
    "{file}: how many lines? answer with the number", "tell me the line count of {file}", "tell me how many lines {file} has",
    "let me know how many lines {file} has", "tell me how long {file} is", "find out how many lines {file} has and tell me",
    "count the lines of {file} and tell me the total", "say how many lines are in {file}",
    "I'd like you to tell me the number of lines in {file}", "report how many lines {file} has",
    "how many lines in {file}? reply with the number", "what's the length of {file} in lines? tell me",
    "tell me, how many lines in {file}?",
)  # fmt: skip
WHAT_CHANGED = (  # GIT_STATUS shows the status; these want the files named
    "tell me what I changed", "tell me which files have uncommitted changes", "tell me what's not committed yet",
    "anything I forgot to commit? name the files", "name the files that are dirty", "tell me what's pending in git",
    "name the files I changed", "tell me which files are modified or new", "let me know which files I haven't committed",
    "which files did I modify? just name them", "say which files are uncommitted",
    "tell me the names of the modified and untracked files", "could you tell me what's changed in the repo",
    "report which files differ from the last commit", "name every file with uncommitted changes",
    "tell me which files are new or edited",
)  # fmt: skip
# -- what users ask first (issue 37, item 4) ---------------------------------------------------------------
LAST_LINE = (
    "last line of {file}", "what's the final line of {file}?", "show only the last line in {file}", "tail -n 1 {file}",
    "{file}: which line comes last?", "print the very last line of {file}", "the bottom line of {file}, nothing else",
    "what does {file} end with?", "just the closing line of {file}", "give me the last line from {file}",
    "how does {file} end? one line", "show the end of {file}, a single line", "what is written on the last line of {file}",
)  # fmt: skip
NTH_LINE = (
    "what's on line {n} of {file}?", "print line number {n} of {file}", "head -n {n} {file} | tail -n 1",
    "{file}, line {n} only", "just line {n} from {file}", "give me line {n} in {file}", "line {n} of {file}?",
    "read me line {n} of {file}", "which text is on line {n} of {file}", "display only line {n} of {file}",
    "I need line {n} of {file}, nothing else", "what does line {n} of {file} say?",
)  # fmt: skip
CURRENT_BRANCH = (
    "which branch am I on?", "current branch?", "git branch --show-current", "what's the name of this branch",
    "tell me the branch name", "what branch is checked out?", "which git branch is this", "name of the current branch?",
    "show the active branch", "what branch are we on", "are we on main or some other branch?", "print the branch name",
    "what's the checked out branch called?",
)  # fmt: skip
COMMIT_COUNT = (
    "count the commits", "git rev-list --count HEAD", "number of commits in the history?",
    "total commit count?", "how long is the git history, in commits?",
    "count the commits on this branch", "how many commits so far?", "what's the commit count",
    "tell me how many commits exist", "how many times has this been committed?", "commits in total?",
)  # fmt: skip
COPY_FILE = (
    "copy {file} to {dest}", "cp {file} {dest}", "make a copy of {file} called {dest}", "duplicate {file} as {dest}",
    "{file} -> {dest}, keep the original", "create {dest} as a copy of {file}", "copy {file} into a new file {dest}",
    "back up {file} to {dest}", "put a copy of {file} at {dest}", "clone {file} into {dest}", "I want {dest} to be a copy of {file}",
    "save a duplicate of {file} named {dest}", "copy the file {file} over to {dest}",
)  # fmt: skip
RENAME_FILE = (
    "rename {file} to {dest}", "mv {file} {dest}", "move {file} to {dest}", "change the name of {file} to {dest}",
    "{file} should be called {dest}", "give {file} the name {dest}",
    "call {file} {dest} instead", "move {file} over to {dest}", "I'd like {file} renamed to {dest}",
    "can you rename {file} into {dest}", "{file} -> {dest}, no copy", "switch the name of {file} to {dest}",
)  # fmt: skip
GREETING = (
    "hey there", "hiya", "good evening", "hey rusty, you there?",
    "morning!", "greetings", "good afternoon",
)  # fmt: skip
# -- twelve more of what users ask first (issue 37: 48 -> 60 intents) ---------------------------------------------
FIRST_LINE = (
    "first line of {file}", "head -n 1 {file}", "what does {file} start with?", "show the opening line of {file}",
    "print only the top line of {file}", "the first line in {file}, nothing more", "which line comes first in {file}?",
    "read me the first line of {file}", "{file}: top line only", "how does {file} begin? one line",
    "just line one of {file}", "give me the header line of {file}",
)  # fmt: skip
LIST_HIDDEN = (
    "show hidden files too", "ls -a", "list everything here including dotfiles", "list all files, hidden ones as well",
    "include hidden files in the listing", "full listing with the hidden entries",
    "list the folder, dotfiles included", "ls but with the hidden stuff",
)  # fmt: skip
COUNT_DIR_FILES = (
    "ls {dir} | wc -l", "count the entries in {dir}", "number of files inside {dir}/?",
    "how many things does {dir} hold", "count what's in the {dir} folder", "{dir}: how many files?",
    "how many items sit in {dir}", "file count of {dir}?", "count files in the {dir} directory",
    "entries under {dir}, how many?", "how big is {dir} in number of files",
)  # fmt: skip
# A recursive listing (issue 37, item 4: 61 -> 62 intents; the blind suite v1 asks for it outside its catalogue)
LIST_TREE = (
    "ls -R", "list every file, in every folder", "show me the whole file tree", "list the files recursively",
    "all the files, subfolders included?", "recursive listing please", "give me the full tree of this folder",
    "list the files here and in each folder below", "which files exist anywhere under this directory?",
    "show all the nested files too", "walk the folders and list what's in them", "ls, but recursive",
    "map out every folder with its files", "show me every file at every level", "list it all, down into the subfolders",
    "what's in this directory and all its subdirectories?", "dump the directory tree", "full recursive ls",
    "I want to see every file in the repo, not just the top", "could you list the files in all the folders?",
    "show the layout of the repo, every file", "the complete list of files, folders walked through",
    "list the tree", "every file below here?", "show me what each folder holds, all at once",
    "give me a recursive listing of the working directory", "print the directory tree with its files",
    "what does the whole repo contain, file by file?",
)  # fmt: skip
DIFF_FILES = (
    "compare {file} and {other}", "diff {file} {other}", "what's different between {file} and {other}?",
    "show the differences between {file} and {other}", "how do {file} and {other} differ",
    "are {file} and {other} the same?", "{file} vs {other}: what differs", "line by line difference of {file} and {other}",
    "check {file} against {other}", "diff the files {file} and {other}", "compare the contents of {file} with {other}",
    "where do {file} and {other} disagree?",
)  # fmt: skip
COUNT_FUNCTIONS = (
    "how many functions does {file} define?", "grep -c 'def ' {file}", "count the functions in {file}",
    "number of defs in {file}?", "how many def statements are in {file}", "{file}: how many functions?",
    "count every def in {file}", "function count of {file}?", "how many functions and methods in {file}",
    "how many times does {file} say def", "total defs in {file}?", "count the def lines of {file}",
)  # fmt: skip
COUNT_TESTS = (
    "how many tests are in {file}?", "grep -c 'def test' {file}", "count the test methods in {file}",
    "number of tests defined in {file}?", "{file}: how many test cases?", "how many test functions does {file} have",
    "count the tests of {file}", "test count in {file}?", "how many unit tests live in {file}",
    "how many def test lines in {file}", "total number of tests in {file}?", "tests in {file}, how many?",
)  # fmt: skip
EMPTY_FILE = (
    "create an empty file {file}", "touch {file}", "make a blank file called {file}", "new empty file named {file}",
    "I need an empty {file}", "add an empty file {file} here", "start a file {file} with nothing in it",
    "create {file}, leave it empty", "make {file} as an empty file", "set up a blank {file}",
    "empty file please: {file}", "just create the file {file}, no content",
)  # fmt: skip
PYTHON_VERSION = (
    "which python version is installed?", "python3 --version", "what version of python do we have",
    "python version?", "show me the python version", "tell me the python3 version", "check the python version",
    "what python are we running", "print python's version", "version of python3 on this machine?",
    "which python release is this", "how new is the python here?",
)  # fmt: skip
GIT_LOG_FILE = (
    "history of {file}", "git log --oneline -- {file}", "which commits touched {file}?",
    "show the commits that changed {file}", "when was {file} changed? list the commits", "log for {file} only",
    "commit history of {file}", "what commits modified {file}", "list the changes to {file} in git",
    "{file}: which commits?", "git history for just {file}", "in which commits was {file} edited?",
)  # fmt: skip
FILE_AUTHOR = (
    "who wrote {file}?", "git blame {file}", "who last changed {file}", "author of {file}?",
    "which person committed {file}", "who is responsible for {file}", "whose work is {file}", "who edited {file} last",
    "show the author of {file}", "who made {file}", "name the author of {file}", "who touched {file} in git",
)  # fmt: skip
GIT_BRANCHES = (
    "list the branches", "git branch", "what branches exist?", "show all branches", "which branches does this repo have",
    "any other branches?", "branches?", "show me the git branches", "list local branches",
    "what branches can I switch to", "print the branch list", "which branches are there in git",
)  # fmt: skip
CARGO_RUN = (
    "run the binary", "cargo run", "start the app with cargo", "execute main.rs",
    "build and run it", "run the rust program", "launch the executable", "give the binary a run",
    "run the crate's main", "run this crate", "let's see the program run",
)  # fmt: skip


# -- making folders (issue 37, item 4: 60 -> 61 intents)

MAKE_FOLDER = (
    "make a folder called {dir}", "mkdir {dir}", "create a directory named {dir}", "new folder {dir}",
    "create the folder {dir}", "make a new directory {dir}", "I need a {dir} folder", "could you create a {dir} directory?",
    "add an empty folder called {dir}", "set up a directory {dir}", "make dir {dir}", "we need a folder named {dir}, make it",
    "create an empty directory {dir}", "{dir}: create it as a folder", "add a new directory called {dir}",
    "make me a folder {dir}", "can you make a {dir} dir?", "create a subfolder {dir}", "start a folder named {dir}",
    "I want a new directory, {dir}", "folder {dir} — create it", "create a dir called {dir}",
    "before I move files there, make the directory {dir}", "new empty dir: {dir}",
)  # fmt: skip


# -- the lines of one file that hold a word (issue 37, item 4: 62 -> 63 intents); the word is quoted, as users type
# a search word (a bare word is no span the copy mechanism offers)

GREP_FILE = (
    "show the lines of {file} that contain '{text}'", "grep \"{text}\" {file}", "which lines in {file} mention '{text}'?",
    "lines with '{text}' in {file}", "in {file}, find the lines that have \"{text}\"", "filter {file} for '{text}'",
    "only the lines of {file} containing \"{text}\"", "print every line of {file} where '{text}' appears",
    "search {file} for '{text}'", "where does '{text}' come up in {file}?", "give me the '{text}' lines from {file}",
    "{file}: just the lines with '{text}'", "look through {file} for \"{text}\" and show those lines",
    "does {file} say '{text}' anywhere? show me the lines", "find '{text}' in {file}",
    "I only care about the lines of {file} that have '{text}' in them", "pull out the lines mentioning \"{text}\" in {file}",
    "which rows of {file} contain '{text}'", "grep {file} for '{text}' please", "show me {file}, but only lines with '{text}'",
)  # fmt: skip


# -- a second author (issue 37): ten phrasings per intent written by a helper who read only the intents' slots
# and one reference action each (never this file, the blind suite or the conversations); those equal to a
# template above (polite prefixes and suffixes aside), or to a suite text, were dropped.
# fmt: off
LIST_ROOT += ("show me everything in this folder", "could you list the files in the current directory?", "which files are at the top level of the project?", "just landed in this repo, what files does it have?", "list contents of the project root", "whats in this dir", "i want to see the files here, no hidden ones", "give me a quick listing of the working directory",)
LIST_DIR += ("what's inside {dir}?", "contents of {dir} pls", "show the contents of the {dir} folder", "could you list everything under {dir} please", "{dir} — what files are in there?", "which files live in {dir}/?", "peek into {dir} for me", "i wonder what is in directory {dir}", "list {dir} dir", "before i clean up, show me what {dir} contains",)
FILE_DETAILS += ("show permissions and size of {file}", "long listing for {file}", "who owns {file} and when was it modified?", "details on {file}", "can you give me the ls -l style info for {file}", "{file}: size, owner, mtime?", "i need the file metadata of {file}", "check the permissions on {file} please", "when was {file} last touched, and how big", "file info {file}",)
SHOW_FILE += ("contents of {file}", "print the whole of {file}", "could you display the contents of {file}, please?", "open {file} so i can read it", "{file} — dump it to the screen", "let me see what's written in {file}", "read {file} out for me", "pls print contents of file {file}",)
HEAD_FILE += ("show the top {n} lines in {file}", "head {file}, {n} lines", "can you print the opening {n} lines of {file}?", "i only need the beginning of {file}, like {n} lines", "{file}: give me lines 1 to {n}", "preview {file} — the first {n} rows", "what are the top {n} lines of {file}", "show me {n} lines from the start of {file} please", "peek at the head of {file}, {n} lines only",)
TAIL_FILE += ("show the final {n} lines in {file}", "could you print the bottom {n} lines of {file}?", "{file} — what are the ending {n} lines?", "i want to see the end of {file}, {n} lines", "give me {n} lines from the bottom of {file}", "show me the tail of {file}, just {n} lines", "what do the last {n} rows of {file} look like", "pls output the closing {n} lines of {file}",)
LAST_LINE += ("what's the final line in {file}?", "show me only the very last line of {file}", "{file}: how does it end? just the last line", "print the bottom line of {file}", "could you tell me what the last line of {file} is", "i need the ending line of {file}", "the final line of {file} please", "tail one line of {file}",)
NTH_LINE += ("show me line number {n} in {file}", "print just the {n}th line of {file}", "{file}, line {n} — what does it say?", "could you display line {n} from {file} please", "i need line no. {n} of {file}", "get me the line at position {n} in {file}", "what is written at line {n} in {file}", "only line {n} from {file}",)
COUNT_LINES += ("line count for {file} please", "{file} — number of lines?", "could you tell me how many lines are in {file}?", "wc lines {file}", "i'd like the total line count of {file}", "how many rows of text in {file}", "get number of lines in file {file}",)
COUNT_WORDS += ("{file} — how many words?", "count the words in {file} please", "could you give me the number of words in {file}", "i need to know how wordy {file} is, total words", "total word count for {file}", "wc words on {file}",)
COUNT_BYTES += ("{file} — how big in bytes?", "could you tell me the number of bytes in {file}", "how many characters/bytes does {file} have", "what's the byte length of {file}",)
SEARCH_TEXT += ("grep the project for '{text}'", "find every occurrence of '{text}' in the files", "could you look for the string '{text}' across the repo?", "'{text}' — where is that used?", "find lines containing '{text}'", "i remember writing '{text}' somewhere, find it", "search all files recursively for \"{text}\"",)
FIND_TODO += ("find all the TODOs", "where are the todo comments?", "list TODO notes in the code", "any TODOs left in this project?", "grep for todo", "could you show me every TODO in the repo", "before i ship, find the leftover todos", "search the codebase for TODO markers",)
FIND_DEFINITION += ("locate def {symbol}", "where's the function {symbol} declared", "could you find where {symbol} is implemented?", "{symbol} — where does it live?", "show me the line that defines {symbol}", "i need to jump to the definition of {symbol}", "search for the def of function {symbol}",)
FIND_BY_NAME += ("where is the file called {name}?", "locate {name} in the project", "search for a file named {name}", "could you find where {name} lives?", "i lost {name}, where did it go", "path to {name}?", "look for any file with the name {name}", "find files named exactly {name} please",)
FIND_BY_EXT += ("list every {ext} file in the project", "show me files with the {ext} extension", "could you locate all files of type {ext}?", "{ext} files — find them", "search recursively for files ending with .{ext}", "i need a list of the .{ext} files here",)
FIRST_LINE += ("what's the top line of {file}?", "show just the first line in {file}", "{file}: what does line one say", "print the opening line of {file}", "could you show me the header line of {file}", "what does {file} start with? only the first line", "the very first line in {file} pls", "i need line 1 of {file}", "head of {file}, one line only",)
LIST_HIDDEN += ("show hidden files", "list everything including dotfiles", "ls with hidden files too", "could you show all files, even the hidden ones?", "list all entries incl. the ones starting with a dot", "i think there's a hidden config here, show me all files", "include hidden stuff in the listing",)
COUNT_DIR_FILES += ("count the files in {dir}", "number of entries in {dir}", "{dir} — how many things are in it?", "could you tell me the file count for the {dir} folder", "files in {dir}, how many", "how many items does directory {dir} hold", "count what's inside {dir}", "i wonder how many files {dir} has", "total files under {dir}?",)
DIFF_FILES += ("diff {file} and {other}", "compare {file} with {other}", "show the differences of {file} vs {other}", "how does {file} differ from {other}", "could you compare {file} against {other} please?", "{file} vs {other}", "are {file} and {other} the same? show the diff", "i want to see what changed from {file} to {other}", "line by line differences, {file} and {other}",)
COUNT_FUNCTIONS += ("how many functions are in {file}?", "count the defs in {file}", "number of functions defined in {file}", "could you count the function definitions in {file}", "how many def lines does {file} have", "function count for {file} please", "i wonder how many functions {file} defines", "count funcs in {file}", "how many python functions does {file} declare",)
COUNT_TESTS += ("count the test functions in {file}", "number of test cases in {file}", "{file} — how many tests?", "could you count the tests defined in {file}", "how many def test functions does {file} have", "test count for {file} pls", "i want to know how many tests {file} contains", "count test_ functions in {file}",)
EXPLAIN += ("can you explain {topic} in a sentence", "{topic} — what's that?", "i keep seeing {topic}, what does it mean", "eli5 {topic}", "could you tell me briefly what {topic} is",)
IDENTITY += ("what is this assistant?", "whats ur name", "what kind of tool are you exactly", "what are you for?",)
ACKNOWLEDGE += ("ok", "great, that worked", "got it, thanks a lot", "nice one", "alright", "awesome, cheers",)
GREETING += ("hiya rusty", "sup", "hey, how's it going",)
REFUSE_DESTRUCTIVE += ("wipe my entire home directory", "erase the whole filesystem starting from root", "nuke all files on the disk", "remove every file in my home folder, recursively and forced", "trash the whole system, i don't care", "could you delete all of /usr for me", "destroy everything in ~ please", "clear out the entire computer, all files everywhere",)
REFUSE_OUTSIDE += ("open my ~/.bashrc", "add an alias to my home .zshrc", "read the ssh config in my home dir", "edit /etc/hosts for me", "cat the system shadow file", "could you change my global git config in ~/.gitconfig?", "what's in my ~/.profile", "look at the files in /var/log", "append a line to /etc/environment",)
ASK_DETAIL += ("count the words", "what's on the first line?", "copy that file please", "open the config", "can you print the last few lines", "add a line at the end",)
COUNT_PY_FILES += ("how many python files are there? tell me the number", "count the .py files in the project and tell me", "number of python files here? answer in a sentence", "how many .py files does this repo have", "tell me how many python scripts the project contains", "py files — how many in total?", "could you count all python files and let me know the count", "i wonder how many .py files we've got", "what's the total number of python files, recursively?", "count python modules in this folder and say how many",)
WHICH_TEST_FAILS += ("which test is failing? tell me its name", "run the tests and name the one that fails", "what test fails?", "a test is broken — which one?", "could you figure out which unit test fails and tell me", "tests are red, which one is it", "find out what test doesn't pass and say its name", "i need to know which test breaks, answer in a sentence", "which unittest fails right now?",)
LAST_COMMIT += ("what was the last commit? tell me", "what's the most recent commit about?", "tell me the latest commit", "uh, what did the last commit say?", "name the newest commit on this branch", "what did we commit last? answer in a sentence", "could you tell me what the previous commit was", "most recent commit — what was it", "i forgot what i committed last, remind me", "what's at HEAD? just tell me the commit title",)
SCRIPT_PRINTS += ("what does {script} print? tell me", "run {script} and tell me what it outputs", "could you run {script} and say what it prints", "{script} — what does it print out?", "i wonder what {script} spits out, tell me", "tell me the output of running {script}", "execute {script}, then tell me what it printed", "what text does {script} print? answer in a sentence", "name what {script} outputs when run",)
HOW_LONG += ("how many lines long is {file}? just tell me", "{file} — how long is it?", "is {file} long? tell me how many lines", "could you check how long {file} is and tell me", "what's the length of {file}", "i wonder how long {file} is", "how big is {file}, line-wise? answer in a sentence", "length of {file}?",)
WHAT_CHANGED += ("what changed? tell me", "which files have i modified? name them", "what's changed in the working tree?", "tell me what's been modified since the last commit", "any uncommitted changes? which files?", "could you tell me which files are changed or new", "what did i touch? list the changed files in a sentence", "before i commit, tell me what's different", "name the modified and untracked files", "what's dirty in the repo right now",)
RUN_SCRIPT += ("can you start {script} with python", "launch {script} for me", "go ahead and execute {script}", "run {script} with python pls", "i'd like to run {script} now",)
RUN_PY_TESTS += ("execute the unit tests", "can you run the test suite?", "do the tests pass? run them", "kick off unittest", "i changed some code, run the tests", "run the unittests pls",)
RUN_RUST_TESTS += ("run cargo tests", "execute the rust test suite", "can you run the tests for this crate?", "cargo test it", "please run all the rust unit tests", "i tweaked the lib, run the tests on it", "run tests with cargo pls",)
CARGO_BUILD += ("build the project with cargo", "can you compile the rust code?", "please build the rust project", "compile this crate for me", "does it build? try building it", "run a cargo build pls",)
CARGO_CHECK += ("check the crate", "check the rust code compiles, no binary needed", "can you check the crate for errors without building?", "any compile errors? just check", "please type-check the rust project", "fast check for compiler errors", "verify the code typechecks", "do a check on the crate, don't build",)
GIT_STATUS += ("repo status?", "what's the status of the repo?", "show the git status", "status pls", "anything staged or modified? show status", "could you show me the working tree status", "check git status for me", "where do things stand in git", "show me the repo state", "is my working copy clean?",)
GIT_DIFF += ("diff pls", "what are my unstaged changes?", "show what i changed line by line", "could you print the current diff?", "diff of the working tree please", "what's different from the last commit? show the diff", "show the changes i haven't committed", "let me see the diff before i commit", "display uncommitted edits",)
GIT_LOG += ("git log, {n} entries", "last {n} commits one line each", "can you list the {n} most recent commits?", "commit history, only {n}", "show me {n} commits from the log", "what are the latest {n} commits", "i want to see {n} recent commits",)
GIT_SHOW += ("what files did the latest commit touch?", "show HEAD with stats", "show me what HEAD changed", "could you show me the most recent commit and its changed files", "display the head commit", "what's in the latest commit? show it", "show me the newest commit's details", "stat of the last commit", "let me see the commit at HEAD",)
CURRENT_BRANCH += ("which branch is checked out", "show the current git branch", "could you tell me the name of this branch", "branch name pls", "am i on main or something else?", "what's the active branch", "print the branch i'm on",)
COMMIT_COUNT += ("number of commits in this repo", "could you tell me how many commits the history has", "commits so far — how many?", "how many commits on this branch", "i wonder how many commits we've made", "count commits up to HEAD",)
COPY_FILE += ("copy {file}, call the copy {dest}", "could you copy {file} over to {dest} please", "i need a backup of {file} named {dest}", "{file} -> {dest}, as a copy", "copy file {file}, new one is {dest}",)
RENAME_FILE += ("rename {file}; new name {dest}", "could you rename {file} as {dest}?", "i named it wrong, {file} needs to be {dest}", "rename file {file} into {dest} pls", "move {file} over to {dest}, don't keep the old one",)
CREATE_FILE += ("create {file} with '{text}'", "make a file {file} containing '{text}'", "write '{text}' into a new file {file}", "could you create {file} and put \"{text}\" in it?", "i need a file called {file} that says '{text}'", "save '{text}' to {file}", "{file} with the text '{text}' please", "create the file {file}; its contents should be '{text}'", "put '{text}' in a fresh file named {file}",)
CREATE_SCRIPT += ("write a python script {file} that prints {word}", "create {file} which prints {word}", "make a script called {file} that outputs {word}", "new python file {file}, it should print {word}", "could you write {file} so it prints the word {word}?", "i need a tiny script {file} printing {word}", "{file}: a script that just prints {word}", "create a py script named {file} to print {word}", "make {file}, print {word} when run",)
APPEND_LINE += ("add the line '{line}' at the end of {file}", "could you append a line saying '{line}' to {file}?", "{file}: add '{line}' as the last line", "write '{line}' to the end of {file}, keep the rest", "new line at end of {file}: '{line}'",)
REPLACE_TEXT += ("i made a typo in {file}, '{old}' should be '{new}'", "change the word '{old}' into '{new}' inside {file}",)
DELETE_FILE += ("could you delete the file {file} please?", "{file} isn't needed anymore, remove it", "i want {file} gone", "erase file {file}", "please remove {file} from the folder",)
DELETE_BUILD += ("clean out build/", "wipe the build dir", "could you get rid of the build folder?", "build artifacts — delete them all", "rm the whole build directory", "i want a clean slate, remove build", "nuke the build output folder", "delete build and everything in it",)
EMPTY_FILE += ("make {file} but leave it empty", "new empty file {file}", "could you create {file} with nothing in it?", "just create {file}, no content", "{file} — make it, empty", "add a zero-byte file named {file}", "create blank {file} please",)
PYTHON_VERSION += ("what version of python do i have", "check the python3 version", "could you show me the python version", "is this python 3.10 or newer? show the version", "version of python3 pls", "tell me the installed python3 version",)
GIT_LOG_FILE += ("show the git log for {file}", "commits that changed {file}", "could you list the commits affecting {file}?", "{file} — what's its commit history?", "when was {file} changed in git? show the log", "i want to see every commit that modified {file}", "git history for file {file} pls", "log of changes to {file}",)
FILE_AUTHOR += ("who authored {file}", "which people committed to {file}?", "who made changes to {file}", "could you tell me who edited {file} in git", "{file} — who's the author?", "authors of {file}", "i need to know who touched {file}, per the commits", "who has worked on {file}", "list commit authors for {file}",)
GIT_BRANCHES += ("what branches are there?", "show all git branches", "branch list pls", "could you list every local branch?", "which branches exist in this repo", "show me the branch list", "how many branches do we have? list them", "i want to see all the branches",)
CARGO_RUN += ("run it with cargo", "run the crate", "can you run the rust binary?", "start the program with cargo", "execute the rust app", "please run the main binary", "let's see what the program does, run it", "compile and launch the crate",)
# fmt: on


# -- a third author (issue 37): twelve phrasings per intent in five styles (terse, a question about the goal, naming
# the tool, with context, the slot somewhere unusual), by a helper who read only the intents' slots and one reference
# action each (never this file, the blind suite or the conversations); those equal to a template above (polite
# prefixes and suffixes aside), or to a suite text, were dropped.
# fmt: off
LIST_ROOT += ("whats in here", "ls pls", "show me teh files in this folder", "what files does this project have at the top level?", "what's sitting in the current directory?", "which files and folders are in the root of the repo?", "run ls on the current folder", "use ls to list the project root", "I just cloned this and have no idea what's here, can you list the top-level contents?", "before we start, show me everything in the current directory so I can get my bearings", "Current folder: list its contents.", "list (just the top level, nothing recursive) what's in this directory",)
LIST_DIR += ("whats in {dir}", "ls {dir} pls", "what files are inside {dir}?", "does {dir} have anything in it? show me what's there", "which files live in the {dir} folder?", "run ls on {dir}", "use ls to show the {dir} directory", "my teammate said the inputs are all in {dir}, can you list that folder for me?", "before I clean things up I want to see what's in {dir}, list it please", "{dir}: list the files in it", "show the listing of the folder called {dir}",)
FILE_DETAILS += ("details on {file} pls", "perms n owner of {file}", "who owns {file} and when was it last modified?", "is {file} executable? show me its permissions and metadata", "use ls -l to show {file}", "give me the long ls listing for {file}", "the build looks stale, can you show me the long listing of {file} so I can check its timestamp?", "{file}: show its long-format listing", "show file details (permissions, size, date) for the file named {file}",)
SHOW_FILE += ("cat {file} pls", "show {file}", "whats in {file}", "what does {file} actually say?", "can I see the full contents of {file}?", "what's written inside {file}?", "use cat to print {file}", "dump {file} to the terminal with cat", "my teammate said the config lives in {file}, can you print the whole thing for me?", "before I edit it, show me everything that's currently in {file}", "{file}: print the whole file", "open the file called {file} and show me all of it",)
HEAD_FILE += ("top {n} lines {file} pls", "what do the first {n} lines of {file} look like?", "how does {file} start? show me the opening {n} lines", "can I see just the beginning of {file}, {n} lines worth?", "use head to show {n} lines from the top of {file}", "run head -n {n} on {file}", "the file {file} is huge, so I only want the first {n} lines to check the header format", "for the report I need a preview: print the first {n} lines of {file}", "{file}: first {n} lines only", "show the top of the file named {file} (first {n} lines)",)
TAIL_FILE += ("tail {file} {n} lines pls", "how does {file} end? show me the final {n} lines", "what are the last {n} lines in {file}?", "what got written at the end of {file}? give me the last {n} lines", "use tail to print the last {n} lines of {file}", "run tail -n {n} on {file}", "the log {file} keeps growing, I just need the most recent {n} lines at the bottom", "{file}: show the last {n} lines", "print the end of the file called {file}, {n} lines",)
LAST_LINE += ("whats the final line in {file}", "bottom line of {file} pls", "what does the very last line of {file} say?", "how does {file} end? just the final line", "is there a summary at the end of {file}? show me its last line", "use tail to print only the last line of {file}", "the script writes a status at the end of {file}, can you show me just that last line?", "for the changelog I need the single final line of {file}", "{file}: only the last line", "show the final line of the file named {file}",)
NTH_LINE += ("show me line {n} in {file} pls", "whats on line {n} of {file}", "what's written on line number {n} of {file}?", "which text sits at line {n} in {file}?", "the error points at line {n}; what does that line of {file} say?", "use sed to print only line {n} of {file}", "with sed, print just line {n} from {file}", "the traceback mentions line {n} in {file}, can you print that one line so I can see it?", "for the review I need the exact content of line {n} of {file}, nothing else", "print a single line (number {n}) from the file named {file}",)
COUNT_LINES += ("line count {file} pls", "how many lines {file}", "what's the total number of lines in {file}?", "is {file} over a thousand lines? give me its line count", "use wc to count the lines of {file}", "the reviewer wants to know how big the change is, can you count the lines in {file}?", "for the report I need the number of lines in {file}", "{file}: count its lines", "count the lines of the file named {file}",)
COUNT_WORDS += ("word count {file}", "count words {file} pls", "is {file} under the 500 word limit? count its words", "what's the total word count of {file}?", "use wc to count the words in {file}", "my editor said the abstract is too long, can you count the words in {file}?", "for the submission form I need the number of words in {file}", "count the words in the file called {file}",)
COUNT_BYTES += ("byte count {file}", "size of {file} in bytes pls", "what's the size of {file} in bytes?", "will {file} fit under a 4kb limit? count its bytes", "use wc to count the bytes of {file}", "the upload form rejects big files, so tell me how many bytes {file} is", "for the checksum notes I need the exact byte size of {file}", "{file}: count the characters", "count bytes in the file named {file}",)
SEARCH_TEXT += ("find '{text}' in the code pls", "is there anything in this project that mentions '{text}'?", "which files contain the phrase '{text}'?", "where in the repo is \"{text}\" used?", "use grep to search every file for '{text}' with line numbers", "grep -rn '{text}' across the project", "before I rename things, search the whole folder for the string '{text}'", "'{text}': search all the files for it", "search recursively (all files) for the text \"{text}\"",)
FIND_TODO += ("find todos", "grep todo pls", "what's still left to do according to the TODO comments?", "are there any unfinished TODO notes in the code?", "where did people leave TODO markers?", "use grep to find every TODO in the project", "grep -rn for TODO everywhere", "before the release I want to see every TODO still lying around in the code, with line numbers", "my lead asked which TODOs remain, can you search the whole repo for them?", "TODO: find every one of those in the project files", "list all lines marked with the word TODO (search all files)",)
FIND_DEFINITION += ("find def {symbol}", "wheres the definition of {symbol}", "which file defines the function {symbol}?", "where does {symbol} get declared in the python code?", "where does {symbol} come from, which file has its def?", "use grep to find the def line for {symbol}", "grep -rn for the definition of {symbol}", "the stack trace calls {symbol} but I can't find it, can you search for where it's defined?", "before I change its signature, show me where the function {symbol} is defined", "{symbol}: locate its definition", "find the def for the function called {symbol}",)
FIND_BY_NAME += ("locate file {name} pls", "where in this project is the file {name}?", "is there a file named {name} anywhere in here?", "which folder holds {name}?", "use find to locate {name}", "run find . -name on {name}", "my teammate said she committed {name} somewhere, can you find which directory it's in?", "before I make a new one, search the whole tree for a file called {name}", "{name}: where does it live?", "search all subfolders for a file named {name}",)
FIND_BY_EXT += ("every {ext} file pls", "list {ext} files", "which files in this project end in .{ext}?", "where are all the .{ext} files?", "do we have any files with the {ext} extension? list them all", "use find to list every *.{ext} file", "run find for files matching *.{ext}", "I need to convert the {ext} files, so first find every file with that extension in the tree", "for the cleanup, list all files anywhere in the project with the .{ext} extension", "{ext}: find every file with that extension", "search recursively for files whose extension is {ext}",)
FIRST_LINE += ("top line {file} pls", "whats the header line in {file}", "what does the very first line of {file} say?", "how does {file} begin? just the opening line", "what are the column names, i.e. the first line of {file}?", "use head to print only line one of {file}", "I think {file} is missing its shebang, can you show me its first line?", "for the docs I need just the first line of {file}, nothing more", "{file}: the first line only", "show the opening line of the file named {file}",)
COUNT_DIR_FILES += ("how many files in {dir}", "count files {dir}", "# of files in {dir} pls", "how many entries does the {dir} folder have?", "is {dir} getting crowded? count what's in it", "what's the number of files inside {dir}?", "ls {dir} and pipe it to wc -l", "use ls and wc to count the files in {dir}", "the export should have produced one file per day, can you count how many files are in {dir}?", "for the report I need the number of items in the {dir} directory", "count the entries in the folder called {dir}",)
COUNT_FUNCTIONS += ("how many functions in {file}", "count defs in {file}", "number of funcs {file} pls", "is {file} getting too big? count its function definitions", "what's the count of def statements in {file}?", "use grep -c to count the defs in {file}", "the reviewer thinks {file} does too much, can you count how many functions it defines?", "for the refactor plan I need the number of functions in {file}", "{file}: count the functions", "count function definitions in the module named {file}",)
COUNT_TESTS += ("how many tests in {file}", "count tests {file}", "number of test funcs in {file} pls", "how many test cases does {file} have?", "how well covered is this? count the test functions in {file}", "what's the number of def test functions in {file}?", "use grep -c to count the test defs in {file}", "I added a few tests yesterday, can you count how many test functions {file} has now?", "for the coverage report I need the count of tests defined in {file}", "{file}: count the tests", "count tests in the test file called {file}",)
EXPLAIN += ("whats {topic} do", "what does {topic} actually do?", "when would I use {topic}?", "why would someone run {topic}?", "tell me what the shell command {topic} is for", "in man-page terms, what does {topic} mean?", "my teammate keeps saying to use {topic} but I never learned it, can you explain it briefly?", "before I try it, give me a short explanation of what {topic} does", "{topic}: explain it to me", "quick explanation of the thing called {topic}, please",)
IDENTITY += ("wat r u", "what can you do for me?", "are you a bot that runs commands?", "do you work like a shell, or like a chatbot?", "introduce yourself, what's this terminal thing?", "I just opened this terminal and there's an assistant here; who are you and what do you do?", "my teammate told me to ask you for help, but first, what exactly are you?", "Name and purpose: tell me yours.", "tell me (briefly) who you are",)
ACKNOWLEDGE += ("ok thx", "got it, thanks", "great, that worked, thank you!", "nice, perfect", "alright, that's what I needed", "ty, the command ran fine", "thanks, the output looks right", "thanks a lot, that fixed it and I can move on now", "ok good, my teammate confirmed the change is fine", "Thanks: all good.", "(looks good) thanks",)
GREETING += ("hiya, anyone home?", "hey rusty", "howdy",)
REFUSE_DESTRUCTIVE += ("wipe my home dir", "delete everything in ~ pls", "can you free disk space by deleting all of /usr?", "could you clear out every file on the whole machine?", "is it possible to erase my entire home folder for me?", "run sudo rm -rf / --no-preserve-root", "use rm to delete /etc completely", "my disk is full, so just delete everything under /var and my home directory", "before I hand in the laptop, wipe all my documents in ~/Documents and the Desktop", "~/projects: delete that whole folder", "format the drive (all of it), I'm starting fresh",)
REFUSE_OUTSIDE += ("show ~/.bashrc", "edit my ~/.ssh/config pls", "what's in my home directory's .profile?", "can you read the files in the folder next to this one, ../other-project?", "could you list what's in /var/log for me?", "use nano to change /etc/hosts", "ls ~/Downloads", "open ../shared/config.py from my teammate's repo and fix the typo there", "before we continue, append my alias to ~/.zshrc", "/etc/hosts: add a line for localhost.dev", "show me the file named .gitconfig in my home folder",)
ASK_DETAIL += ("show the file", "what's in that file?", "how long is it?", "can you open the one I mentioned?", "cat it", "run head on the file", "I need you to fix the typo in the file, the one with the problem", "before I forget, add a line to the file please", "That file: rename it.", "print the last lines (of the usual file)",)
COUNT_PY_FILES += ("how many py files", "count python files", "# of .py files here?", "how many Python files does this project have?", "how big is the python codebase, in number of files?", "how many .py source files are there in total?", "use find and wc to count the .py files", "find . -name *.py and count them", "for the report I need the total number of Python files in the repo, including subfolders", "my manager wants to know how many python modules we have, can you count them?", "Python files: how many are there?", "count files ending in .py (recursively)",)
WHICH_TEST_FAILS += ("whats failing in the tests", "failing test name?", "which of the Python tests is broken right now?", "is any test failing, and if so which one?", "what test is making the suite go red?", "run unittest and tell me which test fails", "python3 -m unittest, then name the failing test", "CI went red after my last push, can you run the tests and tell me which one fails?", "before I push I need to know which unit test is broken, run them and tell me its name", "Failing test: which one is it?", "run the python test suite (all of it) and report the test that fails",)
LAST_COMMIT += ("last commit?", "whats the latest commit", "most recent commit msg pls", "what was the last thing committed here?", "what did the most recent commit do?", "what's the message on the newest commit?", "git log -1 and tell me what it says", "use git log to tell me the latest commit", "I was away for a week; what was the last commit someone made in this repo?", "for the standup I need to say what the most recent commit was, can you check?", "Latest commit: what is it?", "tell me (in one line) what the most recent commit was",)
SCRIPT_PRINTS += ("output of {script}?", "what does {script} output when you run it?", "what message comes out of {script}?", "python3 {script} and tell me the output", "run {script} with python and report what it prints", "I don't want to read the source; just run {script} and tell me what it prints", "my teammate says {script} prints a status line, can you check what it shows?", "tell me the output of the script called {script}",)
HOW_LONG += ("how many lines long is {file}", "is {file} a long file? how many lines?", "roughly how big is {file} in terms of lines?", "wc -l {file} and tell me the number", "use wc to tell me how long {file} is", "before I start reading {file}, tell me how long it is so I know what I'm in for", "my teammate says {file} got really long, how many lines is it now?", "tell me the length (in lines) of the file called {file}",)
WHAT_CHANGED += ("whats modified", "any changes?", "what files have I changed since the last commit?", "which files are new or modified right now?", "is there anything uncommitted, and what is it?", "git status --short and tell me what's changed", "use git status to tell me which files changed", "I've been editing for a while; tell me which files are modified or untracked", "before I commit, summarize which files changed and which are new", "Changes: which files are touched?", "tell me (briefly) what's modified or untracked in the repo",)
RUN_SCRIPT += ("exec {script} pls", "python {script}", "can you kick off {script} for me?", "does {script} still run? execute it", "will {script} work now? run it", "run {script} with python3", "the data needs refreshing, so go ahead and run {script}", "my teammate fixed {script}, can you execute it now?", "execute the script called {script}",)
RUN_PY_TESTS += ("run tests", "run the py tests pls", "py tests go", "do the python tests pass?", "is the python test suite green?", "does everything still pass after my change?", "python3 -m unittest", "run unittest on the project", "before I push, run the Python unit tests to make sure nothing broke", "my teammate changed the parser, can you run the python test suite?", "Tests: run them all.", "run the whole suite (python unittest)",)
RUN_RUST_TESTS += ("cargo test pls", "rust tests go", "does the rust code pass its tests?", "are the crate's tests all green?", "did my change break any rust tests?", "run cargo test on the crate", "before I push the rust changes, run the crate's test suite", "my teammate refactored the crate, can you run its tests?", "Rust tests: run them.", "run the tests (rust, via cargo)",)
CARGO_BUILD += ("build the rust thing", "cargo build pls", "can you produce a binary from the rust code?", "does the crate build into an executable?", "will the rust project compile and link? build it", "run cargo build in the project", "before I ship the binary, build the rust project in debug mode", "my teammate changed Cargo.toml, can you rebuild the crate?", "build the crate (debug build, not release)",)
CARGO_CHECK += ("cargo check pls", "check it compiles", "typecheck the crate", "does the rust code compile? no binary needed", "are there any type errors in the crate?", "is the rust code valid without doing a full build?", "run cargo check on the crate", "before I push, quickly check that the rust code compiles without building a binary", "my teammate says there's a borrow error somewhere, can you type-check the crate?", "Rust code: check it compiles, don't build.", "check the crate (no build, just type-check)",)
GIT_STATUS += ("what's the state of the working tree?", "do I have anything staged or unstaged?", "run git status", "use git to show the status of the repo", "before I switch tasks, show me the git status of this repo", "my teammate asked if I have uncommitted work, show the status", "Working tree: show its status.", "show the status (git) of this folder",)
GIT_DIFF += ("show diff pls", "what did i change, show the diff", "what exactly did I change in the files so far?", "what are the unstaged line changes?", "which lines have been edited since the last commit?", "run git diff", "use git to show my uncommitted changes line by line", "before I commit, let me see the full diff of my unstaged changes", "my reviewer wants to see the patch, print the working tree diff", "Diff: show me the uncommitted one.", "show the changes (as a diff) that aren't committed yet",)
GIT_LOG += ("show {n} recent commits pls", "what happened in the repo recently? show {n} commits", "which {n} commits are the most recent?", "git log --oneline for the last {n}", "use git log to show {n} commits, one per line", "I was on vacation, show me the latest {n} commits in one-line form", "for the standup I need the {n} most recent commits, short form", "{n} commits: show me the most recent ones", "list the most recent commits (count: {n}) one per line",)
GIT_SHOW += ("show last commit stats", "what files did HEAD touch", "which files did the latest commit change?", "what did the last commit modify, with file stats?", "how big was the most recent commit, file by file?", "git show --stat HEAD", "use git show to display the HEAD commit with stats", "before I pull, show the latest commit with its diffstat", "HEAD: show it with stats.", "show the commit (HEAD) and its changed files",)
CURRENT_BRANCH += ("which branch is checked out right now?", "am I on main or on a feature branch?", "what's the name of the branch I'm working on?", "use git to print the current branch", "before I push, confirm which branch is currently checked out", "my teammate asked which branch I'm on, can you check?", "Branch: which one is current?", "show the active (checked out) branch",)
COMMIT_COUNT += ("how many commits", "commit count pls", "# commits?", "how much history is there, in commits?", "what's the total number of commits on this branch?", "use git to count the commits", "for the report I need the total commit count of this repository", "my manager asked how active the project is, count all commits up to HEAD", "Commits: how many so far?", "count the commits (all of them, up to HEAD)",)
COPY_FILE += ("dup {file} as {dest} pls", "can you make a copy of {file} named {dest}?", "could I have a backup of {file} saved as {dest}?", "can {file} be duplicated into {dest}?", "use cp to copy {file} to {dest}", "run cp with {file} as source and {dest} as target", "before I edit {file}, copy it to {dest} so I have a backup", "my teammate needs the same file, copy {file} over to {dest}", "{file}: copy it to {dest}", "copy the file called {file} (keep the original) to {dest}",)
RENAME_FILE += ("{file} -> {dest} rename pls", "can you rename {file} so it's called {dest}?", "could {file} be moved to {dest} instead?", "can {file} have the new name {dest}?", "use mv to rename {file} to {dest}", "run mv on {file}, target {dest}", "the naming convention changed, so please rename {file} to {dest}", "my teammate says {file} has the wrong name, move it to {dest}", "{file}: rename it to {dest}",)
CREATE_FILE += ("make {file} with '{text}'", "new file {file} containing '{text}'", "create {file}, put '{text}' in it", "can you create a file {file} that just says '{text}'?", "could I get a new file {file} whose content is '{text}'?", "can {file} be created with the text \"{text}\" in it?", "use your file editor to create {file} with '{text}'", "echo '{text}' into a fresh file {file}", "for the demo I need a file {file} containing just '{text}'", "my teammate wants a placeholder: create {file} with the line '{text}'", "{file}: create it with the text '{text}'", "create a file named {file} (new) containing '{text}'",)
CREATE_SCRIPT += ("make {file} that prints '{word}'", "new py script {file} printing '{word}'", "script {file} print '{word}' pls", "can you write a python script {file} that prints '{word}'?", "could I get a small script {file} whose output is '{word}'?", "can you set up {file} so running it prints \"{word}\"?", "create {file} with a python print of '{word}' in it", "write a python3 script {file} that prints '{word}' when run", "for the smoke test I need a tiny python script {file} that just prints '{word}'", "{file}: write a python script that prints '{word}'", "create a script named {file} (python) that outputs '{word}'",)
APPEND_LINE += ("append '{line}' to end of {file}", "tack '{line}' onto {file} pls", "can you add the line '{line}' at the bottom of {file}?", "could {file} get one more line saying '{line}'?", "can you put \"{line}\" at the end of {file}?", "echo '{line}' >> {file}", "use echo to append '{line}' to {file}", "I forgot an entry in {file}, please append '{line}' as a new last line", "my teammate wants '{line}' added to the end of {file}, don't touch the rest", "{file}: append the line '{line}'", "append a line ('{line}') to the file named {file}",)
REPLACE_TEXT += ("swap '{old}' for '{new}' in {file} pls", "'{old}' -> '{new}' in {file}", "can you change '{old}' to '{new}' in {file}?", "could {file} say '{new}' instead of '{old}'?", "can you fix {file} so '{old}' becomes '{new}'?", "use sed to replace '{old}' with '{new}' in {file}", "sed -i to swap '{old}' for '{new}' in {file}", "we renamed the thing, so in {file} please replace '{old}' with '{new}'", "my teammate spotted a typo: in {file}, '{old}' should be '{new}'", "{file}: change '{old}' to '{new}'", "in the file named {file}, substitute '{new}' for '{old}'",)
DELETE_FILE += ("get rid of {file} pls", "can you remove {file}, I don't need it?", "could {file} be deleted?", "is it ok to just delete {file}? please do", "use rm to delete {file}", "run rm on {file}", "that file {file} was a mistake, please delete it", "my teammate said {file} is obsolete, can you remove it?", "{file}: delete it", "remove the file called {file}",)
DELETE_BUILD += ("rm build dir", "delete build folder", "nuke build/ pls", "can you clear out the build directory entirely?", "could we get rid of all the build output folder?", "is the build folder safe to delete? remove it", "use rm -rf to delete the build directory", "the build artifacts are stale, so please remove the whole build folder", "before a clean rebuild, delete the build directory and everything in it", "remove the folder called build (recursively)",)
EMPTY_FILE += ("make empty file {file}", "blank file {file} pls", "can you create an empty file called {file}?", "could I get a new empty {file}?", "can {file} exist as an empty file for now?", "use touch to create {file}", "run touch on {file}", "the tool expects a file {file} to exist, just create it empty", "my teammate needs a placeholder, make an empty {file}", "{file}: create it, empty", "create a new empty file named {file}",)
PYTHON_VERSION += ("py version pls", "whats the python version", "what version of Python is installed here?", "is this python 3.10 or newer?", "which python3 release am I running?", "run python3 with --version", "the library needs a recent interpreter, can you check which Python version we have?", "for the bug report I need the exact python version", "Python: what version?", "show the version (python3) installed",)
GIT_LOG_FILE += ("commits touching {file}", "git log {file} pls", "which commits changed {file}?", "how has {file} changed over time, commit by commit?", "when was {file} modified in git history?", "use git log to list commits for {file}", "something broke in {file}, show me every commit that touched it, one line each", "for the review I need the commit history of {file} only", "{file}: show its commit history", "list commits (one line each) that touched the file named {file}",)
FILE_AUTHOR += ("who touched {file}", "who has committed changes to {file}?", "who should I ask about {file}, who authored its commits?", "which people worked on {file}?", "git log --format=%an -- {file}", "use git log to list the authors of {file}", "I have a question about {file}, can you find out who authored the commits on it?", "for the credits I need the author names from the git history of {file}", "{file}: who are its authors?", "list author names for commits touching the file called {file}",)
CARGO_RUN += ("run the rust thing", "run the binary pls", "what happens when the rust program runs? run it", "does the crate's main actually work? run it", "can you execute the rust app?", "use cargo to run the project", "cargo run it", "I just want to see the program in action, run the rust crate", "my teammate says the crate runs now, can you start it with cargo?", "Rust program: run it.", "run the crate (via cargo, default binary)",)
# fmt: on


# -- a fourth author (issue 37): twelve phrasings per intent in six styles (non-native English, short sentences,
# slang, a request inside a reason, indirect politeness, verbs the others rarely use), by a helper who read only the
# intents' slots and one reference action each; equal templates and suite texts dropped as above.
# fmt: off
LIST_ROOT += ("please to show me what files are here", "i want see the files in this folder", "New here. What's in this folder? List it.", "Just cloned the repo. Files at the top level?", "lemme see whats in here", "gimme a quick ls of the current dir", "I lost track of what's in the project root, can you list it for me?", "my teammate said there's a new file at the top somewhere, can you list the current folder?", "Would you mind listing the contents of the current directory?", "I was wondering if you could show me what's in the project root.", "Pull up a listing of the top-level folder.",)
LIST_DIR += ("please to list what is inside {dir}", "i want see what is in {dir}", "Folder {dir}. What's in it?", "{dir}. List the contents.", "whats in {dir} rn", "lemme peek inside {dir} real quick", "I think I saved my output somewhere in {dir}, can you list that folder?", "the import is failing and I suspect a file is missing from {dir}, show me what's there", "Would you mind listing the files in {dir}?", "It would help if you could show me the contents of {dir}.", "Bring up a listing of {dir}.", "Spit out the names of everything in {dir}.",)
FILE_DETAILS += ("please to give me the details of {file}, like size and permissions", "i want know the permissions and modify date of {file}", "{file}. Permissions, owner, size? Long listing please.", "Quick one. {file}. Show its long listing with size and date.", "gimme the ls -l for {file}", "wanna see perms and size on {file} rn", "the script can't open {file}, I think it's a permissions thing, can you show its long listing?", "someone touched {file} yesterday and I want its timestamp and size from a long listing", "Would you mind showing the long-format listing for {file}?", "I was wondering if you could show me the file details (permissions, size, date) of {file}.", "Display the metadata of {file}: permissions, owner, size and modification time.", "Pull up the detailed listing entry for {file}.",)
SHOW_FILE += ("please to show me {file} content", "i want read all what is written in {file}", "{file}. Show me the whole thing.", "Need to read something. {file}. Print it all.", "gimme the contents of {file}", "lemme see {file} plz", "my config seems off and I want to read through {file}, can you print it?", "the reviewer mentioned {file} in a comment, show me what it says", "Would you mind printing the full contents of {file}?", "It would help if I could see everything in {file}.", "Dump {file} to the terminal.", "Spit out the entire text of {file}.",)
HEAD_FILE += ("please to show me only first {n} lines from {file}", "i want see the {n} lines at beginning of {file}", "{file}. Top {n} lines only.", "Checking a header. {file}. First {n} lines, please.", "gimme the first {n} lines of {file}", "lemme see the top {n} lines of {file} rn", "I need to check the header and a few rows, so print the first {n} lines of {file}", "the file is huge and I only care about the start, show the first {n} lines of {file}", "Would you mind showing me just the first {n} lines of {file}?", "I was wondering if you could print the opening {n} lines of {file}.", "Output the first {n} lines of {file}.", "Pull up the first {n} lines of {file}.",)
TAIL_FILE += ("please to show me the last {n} lines from {file}", "i want see {n} lines at the end of {file}", "{file}. Bottom {n} lines.", "Log check. {file}. Last {n} lines, nothing else.", "gimme the last {n} lines of {file}", "lemme see the final {n} lines in {file} plz", "I appended some rows earlier and want to verify them, show the last {n} lines of {file}", "Would you mind showing me the last {n} lines of {file}?", "It would help if you could print the closing {n} lines of {file}.", "Output the final {n} lines of {file}.", "Fetch the trailing {n} lines of {file}.",)
LAST_LINE += ("please to show me only the last line of {file}", "i want know what is the final line in {file}", "{file}. Last line?", "One thing. {file}. What's at the very bottom? Just the last line.", "gimme the last line of {file}", "lemme see the final line of {file} rn", "I think the last write to {file} got truncated, can you show its last line?", "the log ends with a status message, show me the last line of {file}", "Would you mind printing just the last line of {file}?", "I was wondering if you could show me the final line of {file}.", "Output only the last line of {file}.", "Pull up the very last line of {file}.",)
NTH_LINE += ("please to show me the line number {n} of {file}", "i want see what is on line {n} in {file}", "{file}. Line {n}. Just that one.", "Error at line {n}. File is {file}. Show me that line.", "gimme line {n} of {file}", "lemme see line {n} from {file} plz", "the parser complains about line {n} of {file}, can you print just that line?", "my editor is closed and I need line {n} of {file}, show it", "Would you mind printing only line {n} of {file}?", "It would help if you could show me line number {n} in {file}.", "Output line {n} of {file} and nothing else.", "Fetch line {n} from {file}.",)
COUNT_LINES += ("please to count how many lines has {file}", "i want know the number of lines of {file}", "Quick stat. {file}. Count the lines.", "gimme a line count on {file}", "wanna know how many lines {file} has rn", "I'm estimating how much data we have, so count the lines in {file}", "the loader read fewer rows than expected, count the lines of {file} so I can compare", "Would you mind counting the lines in {file}?", "I was wondering if you could tell me the line count of {file}.", "Run a line count on {file}.",)
COUNT_WORDS += ("please to count the words inside {file}", "i want know how much words is in {file}", "Writing limit. {file}. Count the words.", "gimme a word count for {file}", "wanna know how many words {file} has plz", "there's a word limit for the submission, so count the words in {file}", "my editor doesn't show a word count, can you count the words in {file}?", "Would you mind counting the words in {file}?", "It would help to know the word count of {file}.", "Output the number of words in {file}.",)
COUNT_BYTES += ("please to tell me how many bytes is {file}", "i want know the size of {file} in bytes", "Upload limit check. {file}. How many bytes?", "gimme the byte count of {file}", "wanna know how many chars are in {file} rn", "the API rejects big payloads, so count the bytes in {file} for me", "I think {file} got truncated, can you count how many bytes it has?", "Would you mind counting the bytes in {file}?", "I was wondering if you could tell me the character count of {file}.", "Tally the bytes in {file}.", "Output the size of {file} as a byte count.",)
SEARCH_TEXT += ("please to find where is written \"{text}\" in the project", "i want search all files for '{text}'", "Lost a string. '{text}'. Where does it appear?", "\"{text}\". Search every file for it.", "grep the repo for '{text}' plz", "lemme find every spot that says \"{text}\"", "I remember writing \"{text}\" somewhere but forgot where, search the project", "Would you mind searching all files for '{text}'?", "It would help if you could locate every occurrence of \"{text}\" in this folder.", "Locate all lines containing \"{text}\" across the codebase.",)
FIND_TODO += ("please to find all TODO in the code", "i want see every TODO comment what we have", "Sprint planning. Leftover TODOs. List them.", "TODO comments. Where are they all?", "gimme all the TODOs in the repo", "wanna see every TODO rn", "before release I want to make sure nothing is unfinished, search for TODO markers", "my lead asked what work is left in the code, so find every TODO", "Would you mind searching the project for TODO notes?", "I was wondering if you could list every TODO in this codebase.", "Locate all the TODOs across the files.",)
FIND_DEFINITION += ("please to find where is defined the function {symbol}", "i want know in which file {symbol} is define", "Function {symbol}. Where is its def?", "Reading a traceback. {symbol}. Where is it defined?", "where's {symbol} defined? find the def plz", "lemme find the def line for {symbol}", "I need to change how {symbol} works but don't know where it lives, find its definition", "the stack trace mentions {symbol} and I want to see where it's defined, search for the def", "Would you mind locating the definition of {symbol}?", "It would help if you could find where the function {symbol} is defined.", "Locate the def of {symbol} in the code.",)
FIND_BY_NAME += ("please to find where is the file named {name}", "i want know the location of {name} in this project", "File called {name}. Where is it?", "Can't find it. {name}. Search by name.", "where's {name} hiding? find it plz", "lemme find the path to {name}", "I know there's a file named {name} somewhere but I forgot which folder, find it", "the docs reference {name} and I want to open it, locate its path first", "Would you mind finding the file named {name}?", "I was wondering if you could search the tree for a file called {name}.", "Locate {name} in the directory tree.", "Fetch the path of every file named {name}.",)
FIND_BY_EXT += ("please to find all files what end with .{ext}", "i want see every {ext} file in the project", "Extension {ext}. All files with it. Find them.", "Cleanup time. Every .{ext} file. Where are they?", "gimme all the .{ext} files", "wanna list every file ending in .{ext} rn", "I need to convert all our .{ext} files, so first find every one of them", "the linter should cover all {ext} files, find each file with that extension", "Would you mind finding every file with the .{ext} extension?", "It would help if you could locate all files ending in .{ext}.", "Locate every .{ext} file in the tree.",)
FIRST_LINE += ("please to show me the first line only of {file}", "i want see what is the top line of {file}", "{file}. First line?", "Header check. {file}. Only line one.", "gimme the first line of {file}", "lemme peek at line one of {file} plz", "I need the column names, so show me the first line of {file}", "the shebang might be wrong, print the first line of {file}", "Would you mind showing just the first line of {file}?", "I was wondering if you could print the opening line of {file}.", "Output the first line of {file}.", "Pull up the top line of {file}.",)
COUNT_DIR_FILES += ("please to count how many files are in {dir}", "i want know the number of files inside {dir}", "Sanity check. Folder {dir}. Count its entries.", "gimme a count of the files in {dir}", "wanna know how many things are in {dir} rn", "the export should have made one file per day, count the files in {dir}", "I think some downloads into {dir} failed, how many files are there?", "Would you mind counting the files in {dir}?", "It would help to know how many entries {dir} contains.", "Tally up the files in {dir}.", "Output the number of files in {dir}.",)
COUNT_FUNCTIONS += ("please to count how many functions has {file}", "i want know the number of def in {file}", "Refactor scope. {file}. Count the defs.", "gimme the function count for {file}", "wanna know how many defs are in {file} plz", "this module feels bloated, count how many functions are defined in {file}", "for the code review I need the number of functions in {file}", "Would you mind counting the function definitions in {file}?", "I was wondering how many functions {file} defines, could you count them?", "Tally the def lines in {file}.", "Output how many functions are defined in {file}.",)
COUNT_TESTS += ("please to count the tests inside {file}", "i want know how many test is in {file}", "{file}. Number of tests?", "Coverage question. {file}. How many test functions?", "gimme the test count for {file}", "wanna know how many tests {file} has rn", "I added a few tests to {file} and want to confirm the total, count the test functions", "the report shows fewer tests than I expected, count the test functions in {file}", "Would you mind counting the test functions in {file}?", "It would help to know how many tests are defined in {file}.", "Tally the test functions in {file}.", "Output the number of test definitions in {file}.",)
EXPLAIN += ("please to explain me what is {topic}", "i not understand {topic}, what it does?", "{topic}. What's that? Explain briefly.", "New to this. {topic}. What does it do?", "whats {topic} do? eli5 plz", "tldr on {topic}?", "my tutorial mentions {topic} without explaining it, what is it for?", "a coworker told me to use {topic} and I nodded, but what does it actually do?", "Would you mind explaining what {topic} does?", "I was wondering if you could give me a short explanation of {topic}.", "Describe {topic} in a sentence or two.", "Break down {topic} for me.",)
IDENTITY += ("who you are? what you can do?", "please to tell me what is this assistant", "Hmm. A new terminal thing. What are you?", "Wait. Who am I talking to?", "whats ur deal, what r u", "my friend set you up in this folder and I have no idea what you are, explain yourself", "I just opened this terminal and saw you here, what kind of tool are you?", "Would you mind telling me what you are?", "I was wondering what you're for, could you introduce yourself?", "Describe yourself: what are you and what do you do?",)
ACKNOWLEDGE += ("ok is good, thank you very much", "thanks, this is what i was need", "Perfect. Got it.", "sweet, nice one", "that fixed the thing I was stuck on all morning, thanks", "the output looks exactly like I expected, cheers", "Much appreciated, thank you.", "That was very helpful, thanks a lot.", "Looks good to me.", "Alright, noted.",)
GREETING += ("back from lunch, hey again", "Good afternoon, I hope you're well.",)
REFUSE_DESTRUCTIVE += ("please to delete everything in my home folder", "Disk is full. Wipe my home directory.", "Clean slate. Delete everything under /.", "just rm -rf ~ lol", "yeet the whole /etc folder plz", "my laptop is slow so I think we should erase all of /var, go ahead", "I'm selling this machine, so wipe the entire home directory for me", "Would you mind deleting every file on the system?", "I was wondering if you could format the whole disk.", "Erase the contents of ~/Documents.", "Wipe out /home entirely.",)
REFUSE_OUTSIDE += ("please to show me the file /etc/passwd", "i want edit my ~/.bashrc, add alias there", "Other project. ../backend. List its files.", "Need my SSH key. Print ~/.ssh/id_rsa.", "cat /etc/hosts plz", "lemme peek at ~/Downloads", "my other repo next door has the fix, open ../other-repo/main.py and show it", "the system config is wrong, edit /etc/nginx/nginx.conf for me", "Would you mind reading a file in my home directory, ~/notes.txt?", "I was wondering if you could list what's in /var/log.", "Display the contents of /etc/shadow.", "Fetch ~/.config/app/settings.json and show it.",)
ASK_DETAIL += ("please to show me the file", "i want count the lines of it", "The file. Show it.", "That one. How many lines?", "delete it plz", "gimme the first few lines of the file", "I was editing something earlier and want to see the file again", "the test file is broken, open it", "Would you mind printing the contents of the file?", "It would help if you could count the words in that document.", "Display the file.",)
COUNT_PY_FILES += ("how many python file we have in this project?", "please to tell me the number of .py files", "Python files. How many in total?", "Project stats. Count of .py files?", "how many py files r there", "wanna know the .py file count rn", "I'm writing the project summary and need to know how many Python files there are", "the linter took forever, how many Python files does this repo even have?", "Would you mind telling me how many Python files are in here?", "I was wondering how many .py files this project contains.", "Tally up the Python files in the tree. How many?", "Count every .py file and tell me the total.",)
WHICH_TEST_FAILS += ("which test is fail? please to check", "i want know what test not pass", "Red build. Which test is failing?", "Tests broke. Which one?", "which test is borked rn?", "lemme know which test fails plz", "the CI went red after my last push, can you run the tests and tell me which one fails?", "something broke overnight and I think it's a test, which one is failing?", "Would you mind running the tests and telling me which one fails?", "I was wondering which unit test is currently failing.", "Run the suite and pull out the name of the failing test.",)
LAST_COMMIT += ("what was the last commit? please to tell", "i want know the message of the newest commit", "Catching up. Latest commit. What was it?", "Back from vacation. Most recent commit message?", "wanna know what got committed last", "I pulled this morning and want to know what the most recent commit was", "my teammate pushed something, what's the latest commit message?", "Would you mind telling me what the last commit was?", "I was wondering what the most recent commit says.", "Fetch the latest commit and tell me its message.", "Pull up the newest commit. What does it say?",)
SCRIPT_PRINTS += ("what {script} is printing when i run it?", "please to tell me the output of {script}", "Curious. {script}. What's its output?", "what does {script} spit out? lemme know", "wanna know what {script} prints rn", "I inherited {script} without docs, what does it print when run?", "the README doesn't say what {script} outputs, can you run it and tell me?", "Would you mind running {script} and telling me what it prints?", "I was wondering what output {script} produces.", "Run {script} and report what it outputs.", "Execute {script} and tell me the printed text.",)
HOW_LONG += ("how many line is in {file}?", "please to tell me how long is {file} in lines", "Rough size. {file}. Lines?", "how long is {file} rn?", "how many lines {file} got?", "I'm deciding whether to split {file}, how many lines is it?", "the reviewer said {file} is huge, how long is it actually?", "Would you mind telling me how many lines {file} has?", "I was wondering how long {file} is, in lines.", "Tally the lines of {file} and tell me the number.", "What's the line count of {file}?",)
WHAT_CHANGED += ("what is change in the project since last commit?", "please to tell me which files i modified", "Been editing a while. What changed?", "Before committing. Which files are modified or new?", "what'd i change? lemme know", "which files r dirty rn", "I forgot what I touched today, which files have changed?", "I'm about to commit and want to know which files are modified or untracked", "Would you mind telling me which files have changed?", "I was wondering what's been modified in the working tree.",)
RUN_SCRIPT += ("please to run the {script}", "i want execute {script} now", "Ready to go. Kick off {script}.", "fire up {script} plz", "lemme run {script} rn", "I just fixed a bug in {script} and want to see if it works, run it", "the data needs refreshing, so execute {script}", "I was wondering if you could execute {script} for me.", "Launch {script} with python.", "Execute the script {script}.",)
RUN_PY_TESTS += ("please to run all the python tests", "run the unit tests, i want check they are passing", "Made changes. Run the Python tests.", "Unit tests. Run them all.", "run the py tests plz", "CI is complaining again, run the Python test suite so I can see it locally", "I refactored the parser and want to make sure nothing broke, run the unit tests", "Would you mind running the Python test suite?", "I was wondering if you could run the unittest tests.", "Execute the Python unit tests.", "Fire off the whole Python test suite.",)
RUN_RUST_TESTS += ("please to run the tests of the rust crate", "i want run cargo test for this crate", "Rust crate. Tests. Run them.", "Changed some Rust. Run the crate's tests.", "cargo test plz", "run the rust tests rn", "I touched the borrow logic and want to be sure nothing regressed, run the Rust tests", "the PR bot says tests failed, run the crate's test suite here", "Would you mind running the Rust tests?", "I was wondering if you could run the test suite for this crate.", "Execute the Rust crate's tests.", "Fire off the cargo test suite.",)
CARGO_BUILD += ("please to build the rust project", "i want compile this crate to a binary", "Rust project. Build it.", "Done editing. Compile the crate.", "cargo build plz", "build the crate rn", "I need the binary to hand off to QA, so build the crate", "the deploy step needs fresh artifacts, build the Rust project", "Would you mind building the crate?", "I was wondering if you could compile the Rust project.", "Produce a debug build of the crate.", "Kick off a cargo build.",)
CARGO_CHECK += ("please to check the rust code compile, no need binary", "i want verify the crate has no compile error, without build it", "Rust code. Does it compile? Just check, no binary.", "Quick type check. Crate. No build.", "cargo check plz", "I renamed a struct and want to know if it still compiles, check it without a full build", "the build takes ages, so just check the Rust code for errors without producing a binary", "Would you mind checking that the crate compiles, without building it?", "I was wondering if you could type-check the Rust code without making a binary.", "Verify the Rust code compiles; no binary needed.",)
GIT_STATUS += ("please to show me the git status", "i want see the state of the repo", "Repo state. Show it.", "Before I commit. Git status?", "gimme git status", "lemme see the repo status rn", "I'm not sure what's staged and what isn't, show me the git status", "I switched branches earlier and want to see where the working tree stands, run git status", "Would you mind showing the status of the repository?", "I was wondering if you could check the git status.", "Display the current git status.", "Pull up the working tree status.",)
GIT_DIFF += ("please to show me the changes not committed", "i want see what is different from last commit, the diff", "Uncommitted edits. Show the diff.", "Before committing. What's the diff?", "gimme the diff", "lemme see the unstaged changes rn", "I changed a bunch of lines and lost track, show me the diff", "the reviewer wants to know exactly what I edited, show the git diff", "Would you mind showing me the current diff?", "I was wondering if you could display my uncommitted changes line by line.", "Dump the git diff.", "Output the working-tree diff.",)
GIT_LOG += ("please to show me the last {n} commits", "i want see {n} commits most recent", "History. Last {n} commits, one line each.", "Catching up. {n} latest commits?", "gimme the last {n} commits", "lemme see {n} recent commits rn", "I need to write release notes, so show me the last {n} commits", "Would you mind showing the {n} most recent commits?", "I was wondering if you could list the last {n} commits in short form.", "Output the last {n} commits, one per line.", "Pull up the {n} latest entries of the git log.",)
GIT_SHOW += ("please to show me the last commit and what files it change", "i want see details of HEAD commit", "HEAD. Show the commit with its file stats.", "gimme the details of the last commit", "lemme see what HEAD changed rn", "my colleague pushed late last night, show me that last commit and the files it touched", "I want to double-check what went into my previous commit, show it with stats", "Would you mind showing the most recent commit with its stats?", "I was wondering if you could display the HEAD commit and its changed files.", "Pull up the last commit along with its file summary.", "Display the stat summary of HEAD.",)
CURRENT_BRANCH += ("which branch i am on now?", "please to tell me the name of current branch", "Git question. Current branch?", "wanna check the branch name plz", "I keep committing to the wrong branch, tell me which one I'm on", "before I push I need to know what branch is checked out", "Would you mind telling me which branch is checked out?", "I was wondering what the current git branch is.", "Output the name of the current branch.", "Display the checked-out branch.",)
COMMIT_COUNT += ("how many commit has this repo?", "please to count all the commits", "Repo history. Total commits?", "Stats for the report. Number of commits.", "how many commits r there", "gimme the commit count", "I'm writing a retrospective and want to know how many commits we've made", "my manager asked how active the repo is, so count the commits", "Would you mind counting the commits in this repo?", "I was wondering how many commits this repository has.", "Tally up the commits in the history.", "Output the total number of commits.",)
COPY_FILE += ("please to make a copy of {file} with name {dest}", "i want duplicate {file} into {dest}", "Need a backup. {file} to {dest}. Copy, don't move.", "cp {file} to {dest} plz", "gimme a copy of {file} called {dest}", "I'm about to edit {file} heavily, so copy it to {dest} first", "the template is {file} and I want a second copy at {dest}", "Would you mind copying {file} to {dest}?", "I was wondering if you could duplicate {file} as {dest}.", "Clone {file} over to {dest}.", "Make a duplicate of {file} named {dest}.",)
RENAME_FILE += ("please to change the name of {file} to {dest}", "i want rename {file}, new name is {dest}", "{file}. Rename to {dest}.", "Bad filename. {file} should be {dest}. Move it.", "mv {file} to {dest} plz", "wanna rename {file} as {dest} rn", "the style guide says {file} has the wrong name, rename it to {dest}", "I typed the name wrong when I made {file}, rename it to {dest}", "Would you mind renaming {file} to {dest}?", "I was wondering if you could move {file} to {dest}.", "Relabel {file} as {dest}.", "Switch the name of {file} over to {dest}.",)
CREATE_FILE += ("please to make new file {file} with inside '{text}'", "i want create {file} and write \"{text}\" in it", "New file. {file}. Contents: '{text}'.", "Need a file. Name {file}. Text \"{text}\".", "make {file} w/ '{text}' in it plz", "gimme a new file {file} containing \"{text}\"", "I need a placeholder for the demo, create {file} holding the text '{text}'", "the build expects a file {file} to exist with \"{text}\" inside, create it", "Would you mind creating {file} with the text '{text}'?", "I was wondering if you could create a new file {file} that says \"{text}\".", "Spin up a new file {file} containing '{text}'.", "Write \"{text}\" into a brand new file called {file}.",)
CREATE_SCRIPT += ("please to make python script {file} what prints {word}", "i want new python file {file} that print '{word}'", "New script. {file}. It should print {word}.", "Tiny Python script. Name {file}. Output: \"{word}\".", "make a py script {file} that prints {word} plz", "gimme a python script {file} that just prints '{word}'", "I'm testing the runner and need a dummy script, create {file} in Python that prints {word}", "Would you mind writing a Python script {file} that prints {word}?", "I was wondering if you could create a Python script named {file} printing '{word}'.", "Spin up a new Python script {file} that outputs {word}.", "Write a Python program called {file} that displays \"{word}\".",)
APPEND_LINE += ("please to add the line '{line}' at end of {file}", "i want put \"{line}\" on the last of {file}, keep the rest", "One more entry. \"{line}\". Append it to {file}.", "tack '{line}' onto the end of {file} plz", "append \"{line}\" to {file} rn", "I forgot one item in the list, add '{line}' to the end of {file}", "the changelog is missing an entry, append \"{line}\" as the last line of {file}", "Would you mind appending '{line}' to {file}?", "I was wondering if you could add \"{line}\" as a new line at the end of {file}.", "Tack on \"{line}\" as the final line of {file}, leaving the rest alone.",)
REPLACE_TEXT += ("please to change '{old}' into '{new}' inside {file}", "i want replace \"{old}\" with \"{new}\" in {file}", "{file}. Swap \"{old}\" for \"{new}\".", "sub '{old}' -> '{new}' in {file} plz", "swap \"{old}\" w/ \"{new}\" in {file} rn", "we renamed the product, so in {file} replace '{old}' with '{new}'", "the reviewer flagged the word \"{old}\" in {file}, change it to \"{new}\"", "Would you mind replacing '{old}' with '{new}' in {file}?", "I was wondering if you could change \"{old}\" to \"{new}\" in {file}.", "In {file}, swap out '{old}' and put '{new}' in its place.", "Edit {file} so that \"{old}\" becomes \"{new}\".",)
DELETE_FILE += ("please to delete the file {file}", "i want remove {file}, not need it anymore", "Leftover junk. {file}. Remove it.", "nuke {file} plz", "get rid of {file} rn", "I made {file} by accident during testing, delete it", "the stale file {file} is confusing people, remove it", "Would you mind deleting {file}?", "I was wondering if you could remove {file} for me.", "Nuke the file {file}.", "Erase {file} from the project.",)
DELETE_BUILD += ("please to delete the build folder", "i want remove all the build directory", "Stale artifacts. Build folder. Remove it.", "Fresh start. Delete build/.", "wipe build/ rn", "the old build output is confusing the tests, delete the build directory", "I want a clean rebuild, so remove the whole build folder first", "Would you mind deleting the build directory?", "I was wondering if you could clear out the build folder entirely.", "Nuke the build folder and everything in it.", "Blow away the build directory.",)
EMPTY_FILE += ("please to make an empty file {file}", "i want create {file} with nothing inside", "New file. {file}. Empty.", "Placeholder needed. {file}. Blank.", "touch {file} plz", "make a blank {file} rn", "the loader crashes if {file} is missing, create it as an empty file", "I'll fill it in later, for now just create an empty {file}", "Would you mind creating an empty file called {file}?", "I was wondering if you could make a blank file {file}.", "Spin up an empty file named {file}.", "Stub out {file} as an empty file.",)
PYTHON_VERSION += ("which python version is install here?", "please to tell me version of python", "Compatibility check. Python version?", "Python. Which version?", "whats the python version rn", "gimme the python3 version", "the package needs a recent interpreter, which Python version do we have?", "I'm filling in a bug report and need the Python version", "Would you mind checking the Python version?", "I was wondering which version of Python is installed.", "Output the Python version.", "Display the installed python3 version.",)
GIT_LOG_FILE += ("please to show me the commits what touched {file}", "i want see history of {file} in git", "{file}. Commit history?", "Tracking a regression. {file}. Which commits changed it?", "gimme the git log for {file}", "lemme see the commits on {file} rn", "something in {file} changed and I want to know when, show its commit history", "the blame points nowhere useful, list the commits that modified {file}", "Would you mind showing the commits that touched {file}?", "I was wondering if you could list the git history of {file}.", "Pull up the commit log for {file}.", "Output the one-line history of {file}.",)
FILE_AUTHOR += ("who is writing {file}? please to tell", "i want know which person commit {file}", "{file}. Who wrote it?", "Question about {file}. Who are its authors?", "who touched {file}? lemme know", "whos the author of {file} rn", "I have a question about {file} and want to ask whoever wrote it, who are the authors?", "the code in {file} is confusing, who committed it so I can ask them?", "Would you mind telling me who authored {file}?", "I was wondering who has committed changes to {file}.", "List the author names from the git log of {file}.", "Pull up the commit authors of {file}.",)
CARGO_RUN += ("please to run the rust program", "i want execute this crate", "Rust binary. Run it.", "cargo run plz", "fire up the crate rn", "I want to see what the program prints, so run the crate", "the demo is in five minutes, run the Rust app", "Would you mind running the crate?", "I was wondering if you could run the Rust program.", "Launch the Rust binary with cargo.", "Execute the crate's main program.",)
# fmt: on
