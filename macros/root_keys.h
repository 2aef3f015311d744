// pnetviz: the key walk of a staged ROOT file's verification (python/pnetviz/output/rootkeys.py):
// every key, directories walked, must have its record inside the file.
#ifndef PNETVIZ_ROOT_KEYS_H
#define PNETVIZ_ROOT_KEYS_H

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

#endif
