import Foundation

extension FastPath {
    /// `bowties --help` (or `-h`, or `help`), printed from ``rootHelp``
    /// when ArgumentParser would lay it out at 80 columns; nil otherwise.
    ///
    /// ArgumentParser builds the root's parser and every command's
    /// configuration to lay the help out: 21.7 M instructions, 3.5 times
    /// what starting the binary costs (bench/README.md, "Point commands").
    /// The text only changes with the code, so `scripts/update-root-help`
    /// keeps a copy, and `FastPathTests` fails when the copy differs from
    /// what ArgumentParser prints.
    ///
    /// The width is ArgumentParser's (`Platform.terminalWidth`): `COLUMNS`
    /// when it reads as a number, else the terminal's width when standard
    /// output is one, else 80. At any other width ArgumentParser lays it out.
    static func help(for arguments: [String]) -> String? {
        guard arguments == ["--help"] || arguments == ["-h"] || arguments == ["help"],
            getenv("BOWTIES_NO_FAST_PATH") == nil, helpWidth == 80
        else { return nil }
        return rootHelp + "\n"
    }

    /// The width ArgumentParser lays help out at.
    static var helpWidth: Int {
        if let columns = getenv("COLUMNS"), let width = Int(String(cString: columns)) { return width }
        var size = winsize()
        if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        return 80
    }
}
