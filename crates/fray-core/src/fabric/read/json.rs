//! fray's JSON format for a fabric of one's own: routers, endpoints, cables and link classes.
//!
//! ```json
//! {
//!   "classes": {
//!     "host": {"lanes": 4, "lane_rate": "25Gb/s", "latency": "50ns"},
//!     "spine": {"lanes": 4, "lane_rate": "25Gb/s", "latency": "100ns"},
//!     "local": {"bandwidth": "25GB/s", "latency": "20ns"}
//!   },
//!   "routers": ["leaf0", "leaf1", "spine0"],
//!   "endpoints": [
//!     {"router": "leaf0", "name": "login"},
//!     {"router": "leaf0", "prefix": "n", "count": 3},
//!     {"router": "leaf1", "prefix": "m", "count": 4, "lanes": 2},
//!     {"router": "leaf1", "bandwidth": "12.5GB/s", "latency": "80ns"}
//!   ],
//!   "links": [
//!     {"a": "leaf0", "b": "spine0", "class": "spine", "count": 2},
//!     {"a": "leaf1", "b": "spine0", "class": "spine", "count": 2, "latency": "150ns"},
//!     {"a": "leaf0", "b": "leaf1", "class": "local"},
//!     {"a": "leaf0", "b": "leaf1"}
//!   ]
//! }
//! ```
//!
//! # Keys
//! - `routers` (required): the routers' names, at least one, each once. Routers are numbered
//!   in this order.
//! - `endpoints`: each entry attaches endpoints to `router`: one named `name`, or `count` of
//!   them (default 1) named `prefix0`, `prefix1`, ... When neither `name` nor `prefix` is given
//!   the `k`-th endpoint of router `R` is named `R/k`. Endpoint names must be unique.
//! - `links`: each entry is `count` parallel cables (default 1) between routers `a` and `b`
//!   (two different routers), of class `class` (default `switch`).
//! - `classes`: link parameters per class. Class `host` gives the endpoints' links; any other
//!   class a link names must be declared here (an empty `{}` will do), except `switch`.
//!   Classes are created in the order declared, after `host`.
//!
//! # Link parameters
//! A class, an endpoint entry or a link entry may give `lanes` (a whole number, 1 to 65535),
//! the rate as either `bandwidth` (the whole link, one direction) or `lane_rate` (one lane),
//! and `latency`. Each parameter an entry leaves out comes from its class, then from
//! [`LinkParameters::default`] (1 lane, 10 GB/s, 100 ns). A `lane_rate` is multiplied by the
//! lanes in force; a `bandwidth` is the link's whatever its lanes.
//!
//! Quantities carry their unit in the value and are read strictly ([`crate::units`]):
//! `"12.5GB/s"`, `"100Gb/s"` (bits), `"800MiB/s"`, `"100ns"`, `"1.5us"`. A plain number where
//! a quantity belongs is an error.
//!
//! # Errors
//! Every error names the file, the line and column of the bad value (for an unknown key, of
//! its value; for a bad entry as a whole, of its opening brace), the path of the value
//! (`links[3].lane_rate`) and what was expected there. Unknown keys and keys given twice are
//! errors.
//!
//! ```
//! use fray_core::fabric::{Fabric, FileFormat};
//!
//! let err = Fabric::read_str(
//!     "{\"routers\": [\"s0\", \"s1\"],\n \"links\": [{\"a\": \"s0\", \"b\": \"s1\", \"latency\": 100}]}",
//!     "mine.json",
//!     FileFormat::Json,
//! )
//! .unwrap_err();
//! assert_eq!(
//!     err.to_string(),
//!     "mine.json:2: column 46: links[0].latency: invalid type: integer `100`, expected a \
//!      string with its unit, e.g. \"100ns\""
//! );
//! ```

use std::collections::HashMap;
use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;

use super::{file_error, line_column, SWITCH_CLASS};
use crate::fabric::spec::{MAX_ENDPOINTS, MAX_ROUTERS};
use crate::fabric::{
    Fabric, FabricBuilder, FabricError, LinkParameters, RouterId, Topology, HOST_CLASS,
};
use crate::units::{parse_link_latency, parse_rate};

/// The keys of the document, of a class, of an endpoint entry and of a link entry.
const DOCUMENT_KEYS: &[&str] = &["routers", "endpoints", "links", "classes"];
const LINK_KEYS: &[&str] = &["lanes", "lane_rate", "bandwidth", "latency"];
const ENDPOINT_KEYS: &[&str] = &[
    "router",
    "name",
    "prefix",
    "count",
    "lanes",
    "lane_rate",
    "bandwidth",
    "latency",
];
const CABLE_KEYS: &[&str] = &[
    "a",
    "b",
    "class",
    "count",
    "lanes",
    "lane_rate",
    "bandwidth",
    "latency",
];

/// The members of a JSON object in file order, their values not yet read.
struct Members<'a>(Vec<(String, &'a RawValue)>);

impl<'de> Deserialize<'de> for Members<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct ObjectVisitor;
        impl<'de> Visitor<'de> for ObjectVisitor {
            type Value = Members<'de>;

            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a JSON object")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut members: Vec<(String, &'de RawValue)> = Vec::new();
                while let Some(key) = map.next_key::<String>()? {
                    if members.iter().any(|(k, _)| *k == key) {
                        return Err(de::Error::custom(format!("key {key:?} given twice")));
                    }
                    members.push((key, map.next_value()?));
                }
                Ok(Members(members))
            }
        }
        d.deserialize_map(ObjectVisitor)
    }
}

/// A quantity: a string with its unit.
struct Quantity(String);

impl<'de> Deserialize<'de> for Quantity {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct QuantityVisitor;
        impl Visitor<'_> for QuantityVisitor {
            type Value = Quantity;

            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string with its unit, e.g. \"100ns\"")
            }

            fn visit_str<E: de::Error>(self, v: &str) -> Result<Quantity, E> {
                Ok(Quantity(v.to_string()))
            }
        }
        d.deserialize_str(QuantityVisitor)
    }
}

/// The rate an entry gives: of the whole link, or of one lane (bytes per second).
#[derive(Debug, Clone, Copy)]
enum Rate {
    Link(f64),
    Lane(f64),
}

/// The link parameters one class or entry gives; what it leaves out is `None`.
#[derive(Debug, Clone, Copy, Default)]
struct LinkFields {
    lanes: Option<u16>,
    rate: Option<Rate>,
    latency_s: Option<f64>,
}

impl LinkFields {
    /// These fields, then `class`'s, then [`LinkParameters::default`].
    fn resolve(&self, class: &LinkFields) -> LinkParameters {
        let default = LinkParameters::default();
        let lanes = self.lanes.or(class.lanes).unwrap_or(default.lanes);
        let bandwidth_bytes_s = match self.rate.or(class.rate) {
            Some(Rate::Link(b)) => b,
            Some(Rate::Lane(r)) => r * f64::from(lanes),
            None => default.bandwidth_bytes_s,
        };
        LinkParameters {
            bandwidth_bytes_s,
            latency_s: self
                .latency_s
                .or(class.latency_s)
                .unwrap_or(default.latency_s),
            lanes,
        }
    }
}

/// A JSON object of the file being read, with its path (`links[3]`) for errors.
struct Object<'a> {
    raw: &'a RawValue,
    path: String,
    members: Vec<(String, &'a RawValue)>,
    used: Vec<bool>,
}

impl<'a> Object<'a> {
    /// The value of `key` and its path, if given (marks it as read).
    fn take(&mut self, key: &str) -> Option<(&'a RawValue, String)> {
        let i = self.members.iter().position(|(k, _)| k == key)?;
        self.used[i] = true;
        Some((self.members[i].1, join(&self.path, key)))
    }
}

/// `parent.key`, or `key` at the top.
fn join(parent: &str, key: &str) -> String {
    if parent.is_empty() {
        key.to_string()
    } else {
        format!("{parent}.{key}")
    }
}

/// Each router's id and the path where it is named, by name.
type RouterIds = HashMap<String, (RouterId, String)>;

/// The text being read and its name.
struct Reader<'a> {
    text: &'a str,
    file: &'a str,
}

impl<'a> Reader<'a> {
    /// An error at the start of `raw`, under `path`.
    fn error(&self, raw: &RawValue, path: &str, reason: impl fmt::Display) -> FabricError {
        let offset = (raw.get().as_ptr() as usize).wrapping_sub(self.text.as_ptr() as usize);
        let (line, column) = line_column(self.text, offset);
        self.error_at(line, column, path, reason)
    }

    fn error_at(
        &self,
        line: usize,
        column: usize,
        path: &str,
        reason: impl fmt::Display,
    ) -> FabricError {
        let column = if column > 0 {
            format!("column {column}: ")
        } else {
            String::new()
        };
        let path = if path.is_empty() {
            String::new()
        } else {
            format!("{path}: ")
        };
        file_error(self.file, line, format!("{column}{path}{reason}"))
    }

    /// Reads `raw` as a `T`; serde's error is placed in the file.
    fn parse<T: Deserialize<'a>>(&self, raw: &'a RawValue, path: &str) -> Result<T, FabricError> {
        serde_json::from_str(raw.get()).map_err(|e| {
            let offset = (raw.get().as_ptr() as usize).wrapping_sub(self.text.as_ptr() as usize);
            let (line, column) = line_column(self.text, offset);
            // Inside an object or array, serde's position counts from its start; a bad
            // scalar is pointed at where it starts.
            let nested = raw.get().starts_with(['{', '[']);
            let (line, column) = match e.line() {
                _ if !nested => (line, column),
                0 | 1 => (line, column + e.column().saturating_sub(1)),
                l => (line + l - 1, e.column()),
            };
            self.error_at(line, column, path, serde_message(&e))
        })
    }

    fn object(&self, raw: &'a RawValue, path: String) -> Result<Object<'a>, FabricError> {
        let Members(members) = self.parse(raw, &path)?;
        Ok(Object {
            raw,
            path,
            used: vec![false; members.len()],
            members,
        })
    }

    /// Fails naming the first key of `object` that was not read, listing `known`.
    fn finish(&self, object: &Object, known: &[&str]) -> Result<(), FabricError> {
        match object.used.iter().position(|&u| !u) {
            None => Ok(()),
            Some(i) => {
                let (key, raw) = &object.members[i];
                let list = match known.split_last() {
                    Some((last, rest)) if !rest.is_empty() => {
                        format!("{} or {last}", rest.join(", "))
                    }
                    _ => known.join(", "),
                };
                Err(self.error(
                    raw,
                    &object.path,
                    format!("unknown key {key:?} (expected {list})"),
                ))
            }
        }
    }

    fn string(&self, object: &mut Object<'a>, key: &str) -> Result<Option<String>, FabricError> {
        object
            .take(key)
            .map(|(raw, path)| self.parse::<String>(raw, &path))
            .transpose()
    }

    /// The router named under `key` (required).
    fn router(
        &self,
        ids: &RouterIds,
        object: &mut Object<'a>,
        key: &str,
    ) -> Result<RouterId, FabricError> {
        let (raw, path) = object
            .take(key)
            .ok_or_else(|| self.error(object.raw, &object.path, format!("missing key {key:?}")))?;
        let name: String = self.parse(raw, &path)?;
        match ids.get(&name) {
            Some(&(id, _)) => Ok(id),
            None => Err(self.error(raw, &path, format!("no router is named {name:?}"))),
        }
    }

    /// The whole number under `key`, from `min` to `max`, if given.
    fn count(
        &self,
        object: &mut Object<'a>,
        key: &str,
        min: u64,
        max: u64,
    ) -> Result<Option<u64>, FabricError> {
        let Some((raw, path)) = object.take(key) else {
            return Ok(None);
        };
        match self.parse::<u64>(raw, &path) {
            Ok(n) if (min..=max).contains(&n) => Ok(Some(n)),
            _ => Err(self.error(
                raw,
                &path,
                format!(
                    "expected a whole number from {min} to {max}, got {}",
                    raw.get()
                ),
            )),
        }
    }

    /// The quantity under `key`, read by `read` (a unit parser), if given.
    fn quantity<E: fmt::Display>(
        &self,
        object: &mut Object<'a>,
        key: &str,
        read: impl Fn(&str) -> Result<f64, E>,
    ) -> Result<Option<f64>, FabricError> {
        let Some((raw, path)) = object.take(key) else {
            return Ok(None);
        };
        let Quantity(text) = self.parse(raw, &path)?;
        read(&text).map(Some).map_err(|e| self.error(raw, &path, e))
    }

    fn link_fields(&self, object: &mut Object<'a>) -> Result<LinkFields, FabricError> {
        let lanes = self
            .count(object, "lanes", 1, u64::from(u16::MAX))?
            .map(|n| n as u16);
        let bandwidth = self.quantity(object, "bandwidth", parse_rate)?;
        let lane_rate = self.quantity(object, "lane_rate", parse_rate)?;
        let rate = match (bandwidth, lane_rate) {
            (Some(_), Some(_)) => {
                return Err(self.error(
                    object.raw,
                    &object.path,
                    "give bandwidth (the whole link) or lane_rate (one lane), not both",
                ))
            }
            (Some(b), None) => Some(Rate::Link(b)),
            (None, Some(r)) => Some(Rate::Lane(r)),
            (None, None) => None,
        };
        let latency_s = self.quantity(object, "latency", parse_link_latency)?;
        Ok(LinkFields {
            lanes,
            rate,
            latency_s,
        })
    }

    /// The items of an array with their paths (`links[3]`); none when `value` is absent.
    fn array(
        &self,
        value: Option<(&'a RawValue, String)>,
    ) -> Result<Vec<(&'a RawValue, String)>, FabricError> {
        let Some((raw, path)) = value else {
            return Ok(Vec::new());
        };
        let items: Vec<&'a RawValue> = self.parse(raw, &path)?;
        Ok(items
            .into_iter()
            .enumerate()
            .map(|(i, item)| (item, format!("{path}[{i}]")))
            .collect())
    }
}

/// serde's message without the position it appends.
fn serde_message(e: &serde_json::Error) -> String {
    let text = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    text.strip_suffix(&suffix).unwrap_or(&text).to_string()
}

/// Reads a fabric in fray's JSON format; `file` names the text in errors.
pub(crate) fn parse(text: &str, file: &str) -> Result<Fabric, FabricError> {
    let r = Reader { text, file };
    let root: &RawValue = serde_json::from_str(text)
        .map_err(|e| r.error_at(e.line().max(1), e.column(), "", serde_message(&e)))?;
    let mut doc = r.object(root, String::new())?;
    let classes_value = doc.take("classes");
    let routers_value = doc.take("routers");
    let endpoints = r.array(doc.take("endpoints"))?;
    let links = r.array(doc.take("links"))?;
    r.finish(&doc, DOCUMENT_KEYS)?;

    // Classes first: links and endpoints take their parameters from them.
    let classes = r.classes(classes_value)?;
    let (routers_raw, routers_path) =
        routers_value.ok_or_else(|| r.error(root, "", "missing key \"routers\""))?;
    let (router_names, router_ids) = r.routers(routers_raw, routers_path)?;
    let mut b = FabricBuilder::new(router_names.len());
    let mut class_ids: HashMap<&str, (u16, &LinkFields)> = HashMap::new();
    for (name, fields) in &classes {
        class_ids.insert(name, (b.class(name), fields));
    }
    let endpoint_names = r.endpoints(&mut b, endpoints, &router_names, &router_ids, &class_ids)?;
    r.links(&mut b, links, &router_ids, &class_ids)?;
    b.router_names(router_names);
    b.endpoint_names(endpoint_names);
    b.build(Topology::Graph).map_err(|e| r.error(root, "", e))
}

/// Each declared class's id in the fabric and its parameters, by name.
type ClassIds<'c> = HashMap<&'c str, (u16, &'c LinkFields)>;

impl<'a> Reader<'a> {
    /// The classes in the order declared, with their parameters.
    fn classes(
        &self,
        value: Option<(&'a RawValue, String)>,
    ) -> Result<Vec<(String, LinkFields)>, FabricError> {
        let Some((raw, path)) = value else {
            return Ok(Vec::new());
        };
        let Members(members) = self.parse(raw, &path)?;
        let mut classes = Vec::with_capacity(members.len());
        for (name, value) in members {
            let class_path = join(&path, &name);
            if name.is_empty() {
                return Err(self.error(value, &class_path, "a class needs a name"));
            }
            let mut class = self.object(value, class_path)?;
            let fields = self.link_fields(&mut class)?;
            self.finish(&class, LINK_KEYS)?;
            classes.push((name, fields));
        }
        Ok(classes)
    }

    /// The routers' names in order, and each one's id by name.
    fn routers(
        &self,
        raw: &'a RawValue,
        path: String,
    ) -> Result<(Vec<String>, RouterIds), FabricError> {
        let items = self.array(Some((raw, path.clone())))?;
        if items.is_empty() {
            return Err(self.error(raw, &path, "at least one router is needed"));
        }
        if items.len() > MAX_ROUTERS {
            return Err(self.error(raw, &path, format!("more than {MAX_ROUTERS} routers")));
        }
        let mut ids = RouterIds::new();
        let mut names = Vec::with_capacity(items.len());
        for (item, item_path) in items {
            let name: String = self.parse(item, &item_path)?;
            if let Some((_, first)) = ids.get(&name) {
                return Err(self.error(
                    item,
                    &item_path,
                    format!("router {name:?} is already {first}"),
                ));
            }
            ids.insert(name.clone(), (names.len() as RouterId, item_path));
            names.push(name);
        }
        Ok((names, ids))
    }

    /// Adds the endpoints of every entry to `b`; returns their names in the order added.
    fn endpoints(
        &self,
        b: &mut FabricBuilder,
        entries: Vec<(&'a RawValue, String)>,
        router_names: &[String],
        router_ids: &RouterIds,
        classes: &ClassIds,
    ) -> Result<Vec<String>, FabricError> {
        let no_fields = LinkFields::default();
        let host_fields = classes.get(HOST_CLASS).map_or(&no_fields, |c| c.1);
        let mut names: Vec<String> = Vec::new();
        let mut named_by: HashMap<String, String> = HashMap::new();
        let mut per_router = vec![0u64; router_names.len()];
        for (raw, path) in entries {
            let mut entry = self.object(raw, path)?;
            let at = self.router(router_ids, &mut entry, "router")?;
            let name = self.string(&mut entry, "name")?;
            let prefix = self.string(&mut entry, "prefix")?;
            let count = self.count(&mut entry, "count", 1, MAX_ENDPOINTS as u64)?;
            let link = self.link_fields(&mut entry)?.resolve(host_fields);
            self.finish(&entry, ENDPOINT_KEYS)?;
            let entry_error = |reason: &str| self.error(entry.raw, &entry.path, reason);
            if name.is_some() && (prefix.is_some() || count.is_some_and(|c| c > 1)) {
                return Err(entry_error(
                    "name names one endpoint: give prefix and count for several",
                ));
            }
            let count = count.unwrap_or(1);
            if names.len() as u64 + count > MAX_ENDPOINTS as u64 {
                return Err(entry_error(&format!("more than {MAX_ENDPOINTS} endpoints")));
            }
            for k in 0..count {
                let router = at as usize;
                let endpoint = match (&name, &prefix) {
                    (Some(n), _) => n.clone(),
                    (None, Some(p)) => format!("{p}{k}"),
                    (None, None) => format!("{}/{}", router_names[router], per_router[router]),
                };
                per_router[router] += 1;
                if let Some(first) = named_by.get(&endpoint) {
                    return Err(entry_error(&format!(
                        "endpoint name {endpoint:?} is already used by {first}"
                    )));
                }
                named_by.insert(endpoint.clone(), entry.path.clone());
                names.push(endpoint);
            }
            b.endpoints(at, count as u32, link)
                .map_err(|e| entry_error(&e.to_string()))?;
        }
        Ok(names)
    }

    /// Adds the cables of every link entry to `b`.
    fn links(
        &self,
        b: &mut FabricBuilder,
        entries: Vec<(&'a RawValue, String)>,
        router_ids: &RouterIds,
        classes: &ClassIds,
    ) -> Result<(), FabricError> {
        let no_fields = LinkFields::default();
        let mut cables = 0u64;
        for (raw, path) in entries {
            let mut entry = self.object(raw, path)?;
            let a = self.router(router_ids, &mut entry, "a")?;
            let z = self.router(router_ids, &mut entry, "b")?;
            let class_name = self.string(&mut entry, "class")?;
            let count = self
                .count(&mut entry, "count", 1, MAX_ENDPOINTS as u64)?
                .unwrap_or(1);
            let fields = self.link_fields(&mut entry)?;
            self.finish(&entry, CABLE_KEYS)?;
            let entry_error = |reason: &str| self.error(entry.raw, &entry.path, reason);
            if a == z {
                return Err(entry_error("a link joins two different routers (a and b)"));
            }
            let class_name = class_name.as_deref().unwrap_or(SWITCH_CLASS);
            let (class, class_link) = match classes.get(class_name) {
                _ if class_name == HOST_CLASS => {
                    return Err(entry_error(
                        "class host is the endpoints' links; give router links another class",
                    ))
                }
                Some(&(id, fields)) => (id, fields),
                None if class_name == SWITCH_CLASS => (b.class(SWITCH_CLASS), &no_fields),
                None => {
                    let mut declared: Vec<&str> = classes.keys().copied().collect();
                    declared.sort_unstable();
                    return Err(entry_error(&format!(
                        "class {class_name:?} is not declared in classes (declared: {})",
                        if declared.is_empty() {
                            "none".to_string()
                        } else {
                            declared.join(", ")
                        }
                    )));
                }
            };
            cables += count;
            if cables > MAX_ENDPOINTS as u64 {
                return Err(entry_error(&format!("more than {MAX_ENDPOINTS} cables")));
            }
            let link = fields.resolve(class_link);
            for _ in 0..count {
                b.cable(a, z, class, link)
                    .map_err(|e| entry_error(&e.to_string()))?;
            }
        }
        Ok(())
    }
}
