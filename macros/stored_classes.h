// pnetviz: the classes a ROOT file would make when read, found in its records without reading any
// object (python/pnetviz/draw/stored.py checks them against the classes pnetviz writes).
//
// Three records name every class ROOT instantiates while reading a file's objects:
// - the streamer-info record (TFile::GetStreamerInfoList): one TStreamerInfo per class written,
//   with the classes of its bases and members;
// - each key's class (the object the key holds);
// - inside each key's object buffer (uncompressed as TKey::ReadObj does), each object reached
//   through a pointer or a collection (TBufferFile::ReadObjectAny) is preceded by its class: the
//   first time in the buffer as kNewClassTag (0xFFFFFFFF) and the class name ending in a NUL
//   (TClass::Load), later as a reference to that place. Every byte offset is tried, so every
//   class ROOT would look up in the buffer is listed (with, perhaps, strings that are no class).
#ifndef PNETVIZ_STORED_CLASSES_H
#define PNETVIZ_STORED_CLASSES_H

#include "RZip.h"
#include "TClass.h"
#include "TDirectory.h"
#include "TFile.h"
#include "TKey.h"
#include "TList.h"
#include "TStreamerElement.h"
#include "TVirtualStreamerInfo.h"
#include "TDataMember.h"
#include "TExec.h"
#include "TPad.h"
#include "TRealData.h"
#include <unordered_map>
#include <unordered_set>
#include <cstring>
#include <set>
#include <string>
#include <vector>

namespace pnetviz_stored {

// Where a name was found: "streamer info", "key <path>", "object of key <path>".
struct Found {
   std::string name, where;
};

// The bytes of `key`'s object as ROOT streams them (empty with `whole` false if the record does
// not uncompress to its stated length: ROOT would then stream a part of it).
inline std::vector<unsigned char> object_bytes(TKey* key, bool& whole) {
   whole = false;
   TFile* file = key->GetFile();
   const Int_t nbytes = key->GetNbytes(), keylen = key->GetKeylen(), objlen = key->GetObjlen();
   if (!file || nbytes <= 0 || keylen < 0 || objlen < 0 || keylen > nbytes) return {};
   std::vector<unsigned char> raw(nbytes);
   file->Seek(key->GetSeekKey());
   if (file->ReadBuffer(reinterpret_cast<char*>(raw.data()), nbytes)) return {};
   if (objlen <= nbytes - keylen) {
      whole = true;
      return std::vector<unsigned char>(raw.begin() + keylen, raw.begin() + keylen + objlen);
   }
   std::vector<unsigned char> out(objlen);
   unsigned char* src = raw.data() + keylen;
   unsigned char* end = raw.data() + nbytes;
   Int_t done = 0;
   while (done < objlen && end - src >= 9) {
      Int_t nin = 0, nbuf = 0, nout = 0;
      if (R__unzip_header(&nin, src, &nbuf) != 0 || nin <= 0 || nin > end - src || nbuf > objlen - done) return {};
      Int_t srcsize = nin, tgtsize = nbuf;
      R__unzip(&srcsize, src, &tgtsize, out.data() + done, &nout);
      if (nout <= 0) return {};
      done += nout;
      src += nin;
   }
   whole = done == objlen;
   return out;
}

// Every class name tagged in `bytes` (kNewClassTag and a NUL-ended string after it, at any offset).
inline void tagged_names(const std::vector<unsigned char>& bytes, const std::string& where, std::vector<Found>& out) {
   const std::size_t n = bytes.size();
   for (std::size_t i = 0; i + 4 < n; ++i) {
      if (bytes[i] != 0xFF || bytes[i + 1] != 0xFF || bytes[i + 2] != 0xFF || bytes[i + 3] != 0xFF) continue;
      std::size_t j = i + 4;
      while (j < n && bytes[j] != 0) ++j;
      if (j == i + 4) continue;  // an empty name: ROOT finds no class
      out.push_back({std::string(reinterpret_cast<const char*>(bytes.data() + i + 4), j - i - 4), where});
   }
}

inline void walk_keys(TDirectory* dir, const std::string& prefix, std::vector<Found>& out, int depth) {
   if (!dir || depth > 32) return;
   std::set<std::string> seen;  // a key's cycles: each record scanned
   TIter next(dir->GetListOfKeys());
   while (TKey* key = static_cast<TKey*>(next())) {
      const std::string path = prefix + key->GetName();
      const std::string cls = key->GetClassName();
      out.push_back({cls, "key " + path});
      bool whole = false;
      std::vector<unsigned char> bytes = object_bytes(key, whole);
      if (!whole) {
         out.push_back({"", "unreadable key " + path});
         continue;
      }
      tagged_names(bytes, "object of key " + path, out);
      if (cls == "TDirectoryFile" || cls == "TDirectory") {
         TDirectory* sub = dir->GetDirectory(key->GetName());
         if (sub) walk_keys(sub, path + "/", out, depth + 1);
      }
   }
}

// Every class the records of `file` name: (name, where) pairs, in file order; a name "" marks a
// key whose record ROOT could not uncompress whole.
inline std::vector<Found> file_classes(TFile* file) {
   std::vector<Found> out;
   TList* infos = file->GetStreamerInfoList();
   if (infos) {
      TIter next(infos);
      while (TObject* obj = next()) {
         auto* info = dynamic_cast<TVirtualStreamerInfo*>(obj);
         if (!info) {  // the list's other records (schema rules): named by their class
            out.push_back({obj->ClassName(), "streamer info"});
            continue;
         }
         out.push_back({info->GetName(), "streamer info"});
         const std::string of = "streamer info of " + std::string(info->GetName());
         TIter elements(info->GetElements());
         while (auto* element = dynamic_cast<TStreamerElement*>(elements())) {
            if (dynamic_cast<TStreamerBase*>(element)) {
               out.push_back({element->GetName(), of});  // a base class
               continue;
            }
            const Int_t type = element->GetType();
            if (type > 0 && type < TVirtualStreamerInfo::kObject) continue;  // numbers, their arrays and pointers
            std::string name = element->GetTypeName();
            if (name.rfind("const ", 0) == 0) name.erase(0, 6);
            while (!name.empty() && (name.back() == '*' || name.back() == ' ')) name.pop_back();
            out.push_back({name, of});
         }
      }
      delete infos;
   }
   walk_keys(file, "", out, 0);
   return out;
}

// An object reached from a canvas read back: its class, name and title, whether it is an entry
// of a pad's list of primitives (where ROOT paints it as a primitive), and the pad it is in.
struct Reached {
   std::string cls, name, title, pad;
   bool primitive;
};

enum Role { kOther, kPrimitives, kPrimitive };

// The persistent pointer members to TObjects of class `cls` (offset from the object's start,
// the member's class, whether it is a pad's list of primitives), looked up once a class.
struct Member {
   Long_t offset;
   TClass* cls;
   bool primitives;
};

inline const std::vector<Member>& members_of(TClass* cls) {
   static std::unordered_map<TClass*, std::vector<Member>> cache;
   auto found = cache.find(cls);
   if (found != cache.end()) return found->second;
   std::vector<Member> members;
   if (!cls->GetListOfRealData()) cls->BuildRealData();
   if (TList* data = cls->GetListOfRealData()) {
      TIter next(data);
      while (auto* real = static_cast<TRealData*>(next())) {
         TDataMember* member = real->GetDataMember();
         if (!member || !member->IsPersistent() || !member->IsaPointer() || member->GetArrayDim() > 0) continue;
         TClass* mcls = TClass::GetClass(member->GetTypeName());
         if (!mcls || !mcls->IsTObject()) continue;
         const bool primitives = std::string(member->GetName()) == "fPrimitives" && cls->InheritsFrom(TPad::Class());
         members.push_back({real->GetThisOffset(), mcls, primitives});
      }
   }
   return cache.emplace(cls, members).first->second;
}

// Every object `obj` holds, walked through each persistent pointer member and each collection's
// entries (not only the members ROOT is known to paint): what reading it made.
inline void reach(TObject* obj, Role role, const std::string& pad, std::vector<Reached>& out, std::unordered_set<TObject*>& seen, int depth) {
   if (!obj) return;
   TClass* cls = obj->IsA();
   const bool exec = obj->InheritsFrom(TExec::Class());
   if (!exec && !seen.insert(obj).second) return;  // an exec is checked at each place it is found
   out.push_back({cls ? cls->GetName() : "", obj->GetName(), obj->GetTitle(), pad, role == kPrimitive});
   if (!cls || depth > 64) {
      if (depth > 64) out.push_back({"(objects nested deeper than 64)", "", "", pad, false});
      return;
   }
   const std::string inner = obj->InheritsFrom(TPad::Class()) && depth > 0 ? obj->GetName() : pad;
   if (obj->InheritsFrom(TCollection::Class())) {  // its entries (a collection's own members are its storage)
      TIter next(static_cast<TCollection*>(obj));
      while (TObject* entry = next()) reach(entry, role == kPrimitives ? kPrimitive : kOther, inner, out, seen, depth + 1);
      return;
   }
   char* start = reinterpret_cast<char*>(obj) - cls->GetBaseClassOffset(TObject::Class());
   for (const Member& m : members_of(cls)) {
      char* pointer = *reinterpret_cast<char**>(start + m.offset);
      if (!pointer) continue;
      const Int_t to_object = m.cls->GetBaseClassOffset(TObject::Class());
      if (to_object < 0) continue;
      reach(reinterpret_cast<TObject*>(pointer + to_object), m.primitives ? kPrimitives : kOther, inner, out, seen, depth + 1);
   }
}

inline std::vector<Reached> reached(TObject* canvas) {
   std::vector<Reached> out;
   std::unordered_set<TObject*> seen;
   reach(canvas, kOther, "", out, seen, 0);
   return out;
}

inline std::vector<std::string> names(const std::vector<Found>& found) {
   std::vector<std::string> out;
   for (const auto& f : found) out.push_back(f.name);
   return out;
}

inline std::vector<std::string> places(const std::vector<Found>& found) {
   std::vector<std::string> out;
   for (const auto& f : found) out.push_back(f.where);
   return out;
}
}  // namespace pnetviz_stored

#endif
