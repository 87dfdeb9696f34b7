import Foundation
import Testing

@testable import BowTiesKit

/// The store's paths taken from a file URL's text (``URL/fileSystemPath``,
/// ``PhotoFolder/init(storeURL:)``) are Foundation's, for every kind of
/// name: a catalog's lock file and its photo folder must not move.
@Suite("file URLs' paths by hand: the same as Foundation's")
struct FileSystemPathTests {
    static let paths = [
        "/tmp/bowties.sqlite", "/tmp/a b/c.sqlite", "/tmp/100%/x.sqlite", "/tmp/%41%2F/y.sqlite",
        "/tmp/été/ü.sqlite", "/tmp/蝶/cat.db3", "/", "/tmp/dir/", "/tmp/x", "/a.b.c", "/tmp/.hidden",
        "/tmp/name.", "/tmp/x.tar.gz", "/tmp/sp ace.sql ite", "/tmp/a#b?c;d.sqlite", "/tmp/a.SQLite3",
        "/tmp/a..sqlite", "/tmp/.x.sqlite", "/x.sqlite", "/tmp/a+b=c&d.sqlite", "/tmp/tab\there.sqlite",
        "/tmp/ex.tension-with-dash", "/tmp/ext.é",
    ]

    @Test("fileSystemPath, fileSystemFolder and fileSystemName give path, deletingLastPathComponent().path and lastPathComponent")
    func pathsAsFoundationGivesThem() {
        for text in Self.paths {
            let url = URL(fileURLWithPath: text)
            #expect(url.fileSystemPath == url.path, "\(text.debugDescription)")
            #expect(url.fileSystemFolder == url.deletingLastPathComponent().path, "\(text.debugDescription)")
            #expect(url.fileSystemName == url.lastPathComponent, "\(text.debugDescription)")
        }
        // A relative path is resolved against the working directory, as
        // `path` resolves it.
        let relative = URL(fileURLWithPath: "some folder/x.sqlite")
        #expect(relative.fileSystemPath == relative.path)
    }

    @Test("a store's photo folder is the one Foundation's URL calls name, for plain and odd names")
    func photoFolderAsBefore() {
        for text in Self.paths where text != "/" && !text.hasSuffix("/") {
            let url = URL(fileURLWithPath: text)
            let base = url.deletingPathExtension().lastPathComponent
            let expected = url.deletingLastPathComponent()
                .appendingPathComponent(".\(base)_SUPPORT", isDirectory: true)
                .appendingPathComponent("_EXTERNAL_DATA", isDirectory: true)
            let folder = PhotoFolder(storeURL: url).folder
            #expect(folder.path == expected.path, "\(text.debugDescription)")
            #expect(folder.absoluteString == expected.absoluteString, "\(text.debugDescription)")
        }
        // The plain case takes the path's text; the others Foundation's.
        #expect(PhotoFolder.plainName(URL(fileURLWithPath: "/tmp/bowties.sqlite"))! == ("/tmp", "bowties"))
        #expect(PhotoFolder.plainName(URL(fileURLWithPath: "/tmp/.hidden")) == nil)
        #expect(PhotoFolder.plainName(URL(fileURLWithPath: "/tmp/ext.é")) == nil)
    }
}
