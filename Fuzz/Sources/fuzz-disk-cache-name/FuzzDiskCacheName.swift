import CLibFuzzer
import FuzzTargets
import Glibc

@main
enum FuzzDiskCacheName {
    static func main() {
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv) { FuzzTarget.diskCacheName.fuzzOneInput($0, $1) })
    }
}
