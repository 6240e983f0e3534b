/*
 * bcryptprimitives.dll for Wine 8, which lacks it. Go's Windows runtime
 * (1.22 on) takes its random bytes from ProcessPrng and will not start
 * without this DLL. Windows 10 and 11 ship it, and Wine 9 implements it;
 * this stand-in exists only so .ci/run can run howl's Windows build on
 * Debian 12's wine64. It answers with RtlGenRandom (advapi32's
 * SystemFunction036), which Wine implements with the host's random source.
 *
 * Built by .ci/wine-test with x86_64-w64-mingw32-gcc (Debian's
 * gcc-mingw-w64-x86-64-win32); never shipped.
 */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length)
{
    while (length > 0) {
        ULONG chunk = length > 0x40000000 ? 0x40000000 : (ULONG)length;
        if (!SystemFunction036(data, chunk))
            return FALSE;
        data += chunk;
        length -= chunk;
    }
    return TRUE;
}
