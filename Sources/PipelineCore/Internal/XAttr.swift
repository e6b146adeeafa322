#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// glibc's extended-attribute calls, looked up at run time: the Glibc module does not include
/// <sys/xattr.h>, and a C shim target for four functions would give PipelineCore a C dependency.
/// Each is nil where the C library lacks it; callers then fall back to sidecar files. The by-path
/// calls are the `l` variants: a symlink planted under an entry's name is never followed.
package enum XAttr {
    package typealias SetByFD = @convention(c) (Int32, UnsafePointer<CChar>, UnsafeRawPointer?, Int, Int32) -> Int32
    package typealias SetByPath = @convention(c) (UnsafePointer<CChar>, UnsafePointer<CChar>, UnsafeRawPointer?, Int, Int32) -> Int32
    package typealias Get = @convention(c) (UnsafePointer<CChar>, UnsafePointer<CChar>, UnsafeMutableRawPointer?, Int) -> Int
    package typealias Remove = @convention(c) (UnsafePointer<CChar>, UnsafePointer<CChar>) -> Int32

    package static let fset = lookup("fsetxattr", as: SetByFD.self)
    package static let set = lookup("lsetxattr", as: SetByPath.self)
    package static let get = lookup("lgetxattr", as: Get.self)
    package static let remove = lookup("lremovexattr", as: Remove.self)

    private static func lookup<Function>(_ name: String, as type: Function.Type) -> Function? {
        // A null handle is RTLD_DEFAULT: search the process's global symbols (libc is among them).
        guard let symbol = dlsym(nil, name) else { return nil }
        return unsafeBitCast(symbol, to: type)
    }
}
