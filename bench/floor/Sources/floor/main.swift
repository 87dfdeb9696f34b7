// floor
//
// Prints one line through Foundation and exits: the least a static Swift
// program that imports Foundation does, for `bowties --version` and
// `bowties --help` to be measured against. The line goes through
// FileHandle and Data, so Foundation is linked in and starts, as it does
// in bowties; a program that only called `print` would not need it.
import Foundation

FileHandle.standardOutput.write(Data("floor \(CommandLine.arguments.count)\n".utf8))
