"""The key walk of a staged ROOT file's verification (output.atomic): every key, directories
walked, must have its record inside the file. One C++ call a file: the PyROOT loop it replaces made
four calls a key (~10 us each; a multi-class plots.root has ~330 keys)."""

from __future__ import annotations

import functools

from pnetviz.rootenv import compiled

_UNREADABLE_KEYS = r"""
#include "TDirectory.h"
#include "TKey.h"
#include "TList.h"
#include <string>
#include <vector>
namespace pnetviz_rootkeys {
// The path of every key of `dir` (sub-directories walked, "dir/name") whose record ends beyond
// byte `size`, or that names a directory which does not read back as one.
inline void unreadable_keys(TDirectory* dir, Long64_t size, const std::string& prefix, std::vector<std::string>& bad) {
   TIter next(dir->GetListOfKeys());
   while (TKey* key = static_cast<TKey*>(next())) {
      const std::string name = prefix + key->GetName();
      const std::string cls = key->GetClassName();
      if (key->GetSeekKey() + key->GetNbytes() > size) {
         bad.push_back(name);
      } else if (cls == "TDirectoryFile" || cls == "TDirectory") {
         TDirectory* sub = dynamic_cast<TDirectory*>(key->ReadObj());  // the file owns it (closed with it)
         if (sub)
            unreadable_keys(sub, size, name + "/", bad);
         else
            bad.push_back(name);
      }
   }
}
inline std::vector<std::string> unreadable(TDirectory* dir, Long64_t size) {
   std::vector<std::string> bad;
   unreadable_keys(dir, size, "", bad);
   return bad;
}
}
"""


@functools.cache
def _kernel():
    return compiled(_UNREADABLE_KEYS, "pnetviz_rootkeys::unreadable").pnetviz_rootkeys.unreadable


def unreadable_keys(directory, size: int) -> list[str]:
    """Paths ("dir/name") of the keys of the open ROOT `directory` whose record ends beyond byte
    `size` of the file, or that name a directory which does not read back (walked otherwise)."""
    return [str(name) for name in _kernel()(directory, size)]
