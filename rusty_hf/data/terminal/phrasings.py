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
    "what's on line {n} of {file}?", "print line number {n} of {file}", "sed -n '{n}p' {file}",
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
