// Package mapping is the field-name transform between the names a backend
// uses (internal, e.g. Total_Assets__c) and the names the public API exposes
// (e.g. totalAssets). It has three parts:
//
//   - Derive turns one internal name into its exposed name.
//   - KeyMap is an immutable, reversible internal->exposed map built once
//     (from configuration or from a type's field list) and shared by every
//     request.
//   - Rewrite copies a JSON document while renaming object keys, dropping
//     null members and selecting fields, without decoding it into Go values:
//     numbers, strings and key order survive byte for byte.
//
// # Derived names
//
// The rule of the original service: the "__c" suffix is dropped, underscores
// are removed and the letter after each is capitalised, and the first letter
// is lower-cased (Total_Assets__c -> totalAssets, SicDesc -> sicDesc,
// Id -> id). Only the first letter is lower-cased, so URL__c becomes uRL:
// existing clients depend on the exact rule, so it is not "improved".
//
// Names with more "__" separators follow the Salesforce API-name shape
// [namespace__]Name[__suffix]:
//
//   - With two or more "__" the first segment is a namespace prefix. It is
//     kept, lower-cased as a whole, and the "__" after it is a word boundary:
//     acme__Credit_Score__c -> acmeCreditScore, ACME__Tier__c -> acmeTier.
//   - Only the suffix "c" (custom field, either case) is dropped. Every other
//     suffix (__r relationship, __x external object, __mdt, __e, __s, __pc...)
//     is kept as a capitalised word: Parent_Account__r -> parentAccountR.
//     Query results carry a lookup (Parent_Account__c) and its relationship
//     (Parent_Account__r) side by side; dropping both suffixes would give the
//     two the same exposed name and the map could not be reversed.
//   - Leading, trailing and repeated underscores produce no empty words:
//     _Foo_ -> foo, a___b -> aB. A name made only of underscores and a __c
//     suffix derives to "", which a KeyMap rejects.
//
// # Rewrite
//
// Rewrite is strict where encoding/json is lenient: strings must be valid
// UTF-8. The output is compact (insignificant whitespace is dropped) and its
// size limit counts bytes, not characters.
//
// Rewrite is fastest on what backends answer: a top-level array of records
// that repeat their keys in the same order, in compact JSON. It remembers
// each record's keys and recognises the next record's by comparing bytes,
// so one call on a whole array costs less per record than one call per
// record, which starts with nothing remembered.
package mapping
