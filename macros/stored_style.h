// pnetviz: cmsstyle's TStyle read from its stored copy and made current, in one compiled call
// (python/pnetviz/draw/style.py _set_cms_style: the same calls in the same order as its Python
// path). Why: through PyROOT these ~15 first calls cost a cling wrapper each (~5 ms), ~0.1 s a process.
#ifndef PNETVIZ_STORED_STYLE_H
#define PNETVIZ_STORED_STYLE_H

#include "TColor.h"
#include "TFile.h"
#include "TROOT.h"
#include "TSeqCollection.h"
#include "TStyle.h"

#include <cstring>

namespace pnetviz_style {
// The TStyle "cmsStyle" of the ROOT file `path`, nullptr where it has none (nothing else done then);
// else it replaces a style of that name in ROOT's list, is set (gROOT->SetStyle), forced, made
// current; `defined_colors`: TColor::DefinedColors(1) before that, as cmsstyle's setter calls it.
inline TStyle* load_style(const char* path, bool defined_colors) {
   TStyle* style = nullptr;
   TFile* stored = TFile::Open(path, "READ");
   if (stored && !stored->IsZombie()) {
      TObject* obj = stored->Get("cmsStyle");
      if (obj && obj->InheritsFrom("TStyle") && std::strcmp(obj->GetName(), "cmsStyle") == 0)
         style = static_cast<TStyle*>(obj);
      stored->Close();  // not deleted, as the Python path leaves it
   }
   if (!style)
      return nullptr;
   if (TStyle* old = gROOT->GetStyle("cmsStyle"))
      gROOT->GetListOfStyles()->Remove(old);
   gROOT->GetListOfStyles()->Add(style);
   gROOT->SetStyle("cmsStyle");
   gROOT->ForceStyle(true);
   if (defined_colors)
      TColor::DefinedColors(1);
   style->cd();
   return style;
}
}  // namespace pnetviz_style

#endif
