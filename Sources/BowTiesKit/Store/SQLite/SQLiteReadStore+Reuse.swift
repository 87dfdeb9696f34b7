import Foundation

extension SQLiteReadStore {
    /// Whether this connection may serve another read as if it had just
    /// been opened: the path still names the file it opened (`device` and
    /// `inode` as `stat` gave them before the open), and that file's
    /// schema is still this version's (``SQLiteSchemaCheck``, the question
    /// ``open(url:wait:model:migrator:)`` asked). Asked outside any
    /// transaction, on the schema SQLite already holds: no file is opened
    /// and nothing is parsed again.
    func isStillCurrent(device: UInt64, inode: UInt64) -> Bool {
        var status = stat()
        guard stat(url.fileSystemPath, &status) == 0, status.st_size > 0,
            UInt64(status.st_dev) == device, UInt64(status.st_ino) == inode
        else { return false }
        return (try? withConnection { try SQLiteSchemaCheck.isCurrent($0, model: model, migrator: migrator) }) == true
    }
}
