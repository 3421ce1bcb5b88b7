from solution import split_shell_args


def _raises(line):
    try:
        split_shell_args(line)
    except ValueError:
        return True
    return False


def test_example():
    line = 'cp "my file.txt" backup\\ dir \'$HOME\''
    assert split_shell_args(line) == ["cp", "my file.txt", "backup dir", "$HOME"]


def test_plain_words_and_whitespace():
    assert split_shell_args("  ls   -l\t/tmp ") == ["ls", "-l", "/tmp"]


def test_pieces_join_and_empty_argument():
    assert split_shell_args('a"b c"d \'\' x') == ["ab cd", "", "x"]


def test_escapes_inside_double_quotes():
    assert split_shell_args('echo "say \\"hi\\" \\n"') == ["echo", 'say "hi" \\n']


def test_single_quotes_are_literal():
    assert split_shell_args("'a \\ \"b'") == ['a \\ "b']


def test_errors():
    assert _raises('echo "open') and _raises("it's") and _raises("end\\")
    assert split_shell_args('echo "open"') == ["echo", "open"]
