//! Which of the reader's allergies a stored recipe's ingredients name.
//!
//! An allergy matches an ingredient the way generation checks it (`ai::mentions`): each of
//! its words begins a word of the ingredient's name, in order, so `peanut` matches `Peanut
//! butter` and `roasted peanuts`, `egg` matches `eggs` but not `eggplant`... which it does
//! (a prefix), so a few words are known not to be what they start with ([`NOT_ALLERGENS`]).
//! An allergy that names a group also matches its members ([`GROUPS`]): `nuts` (or `tree
//! nuts`) matches `walnuts`, `almonds`, `hazelnuts`...; `shellfish` matches `shrimp`; `gluten`
//! matches `wheat flour`; `dairy`, `milk` and `lactose` match `butter`, `cream`, `cheese`. A
//! word that merely ends in the allergy is not a match by itself (`nuts` alone would miss
//! `walnuts`, which the group catches; `nutmeg` is no nut).

use crate::ai::{mentions, words};
use crate::model::{Allergen, RecipeIngredient};

/// Group allergies and the ingredient words each covers (English, German, Hungarian).
const GROUPS: &[(&[&str], &[&str])] = &[
    (
        &["nut", "nuts", "tree nut", "tree nuts", "nüsse", "dió"],
        &[
            "walnut",
            "almond",
            "hazelnut",
            "cashew",
            "pecan",
            "pistachio",
            "macadamia",
            "brazil nut",
            "pine nut",
            "praline",
            "marzipan",
            "nutella",
            "walnuss",
            "mandel",
            "haselnuss",
            "dió",
            "mogyoró",
            "mandula",
        ],
    ),
    (
        &["shellfish", "crustacean", "crustaceans", "meeresfrüchte"],
        &[
            "shrimp",
            "prawn",
            "crab",
            "lobster",
            "crayfish",
            "scampi",
            "langoustine",
            "garnele",
            "krabbe",
            "hummer",
            "garnéla",
            "rák",
        ],
    ),
    (
        &["fish", "fisch", "hal"],
        &[
            "salmon",
            "tuna",
            "cod",
            "anchov",
            "sardine",
            "trout",
            "haddock",
            "mackerel",
            "herring",
            "halibut",
            "lachs",
            "thunfisch",
            "forelle",
            "lazac",
            "tonhal",
            "pisztráng",
        ],
    ),
    (
        &["gluten", "wheat", "weizen", "búza", "glutén"],
        &[
            "wheat",
            "flour",
            "bread",
            "pasta",
            "spaghetti",
            "noodle",
            "barley",
            "rye",
            "spelt",
            "semolina",
            "couscous",
            "breadcrumb",
            "panko",
            "weizen",
            "mehl",
            "dinkel",
            "roggen",
            "liszt",
            "búza",
            "zsemlemorzsa",
        ],
    ),
    (
        &[
            "dairy", "milk", "lactose", "laktose", "milch", "tej", "laktóz",
        ],
        &[
            "milk",
            "cream",
            "butter",
            "cheese",
            "yogurt",
            "yoghurt",
            "parmesan",
            "mozzarella",
            "ricotta",
            "mascarpone",
            "ghee",
            "whey",
            "milch",
            "sahne",
            "käse",
            "quark",
            "tej",
            "tejföl",
            "vaj",
            "sajt",
            "túró",
        ],
    ),
    (
        &["egg", "eggs", "ei", "eier", "tojás"],
        &[
            "egg",
            "mayonnaise",
            "meringue",
            "eier",
            "eigelb",
            "eiweiß",
            "tojás",
        ],
    ),
    (
        &["soy", "soya", "soja", "szója"],
        &[
            "soy", "soya", "tofu", "tempeh", "edamame", "miso", "soja", "szója",
        ],
    ),
];

/// Words that begin like an allergen and are not one (`eggplant` is no egg).
const NOT_ALLERGENS: &[&str] = &[
    "eggplant",
    "nutmeg",
    "butternut",
    "cream of tartar",
    "coconut milk",
    "peanut-free",
    "buttermilk substitute",
];

fn is_exception(name: &[String], allergy_word: &str) -> bool {
    NOT_ALLERGENS.iter().any(|exception| {
        words(exception)
            .iter()
            .any(|word| word.starts_with(allergy_word))
            && mentions(name, exception)
    })
}

/// Whether `allergy` matches an ingredient named `name` (its words).
fn matches(name: &[String], allergy: &str) -> bool {
    let allergy_words = words(allergy);
    let Some(first) = allergy_words.first() else {
        return false;
    };
    if mentions(name, allergy) && !is_exception(name, first) {
        return true;
    }
    let wanted = allergy_words.join(" ");
    GROUPS
        .iter()
        .filter(|(names, _)| names.iter().any(|n| words(n).join(" ") == wanted))
        .flat_map(|(_, members)| members.iter())
        .any(|member| {
            mentions(name, member)
                && !words(member)
                    .first()
                    .is_some_and(|first| is_exception(name, first))
        })
}

/// The reader's `allergies` that `ingredients` name, each with the ingredients (in the
/// recipe's order); empty when none.
pub fn allergens(ingredients: &[RecipeIngredient], allergies: &[String]) -> Vec<Allergen> {
    let names: Vec<(String, Vec<String>)> = ingredients
        .iter()
        .map(|i| (i.name.clone(), words(&i.name)))
        .collect();
    allergies
        .iter()
        .filter_map(|allergy| {
            let found: Vec<String> = names
                .iter()
                .filter(|(_, w)| matches(w, allergy))
                .map(|(name, _)| name.clone())
                .collect();
            (!found.is_empty()).then(|| Allergen {
                allergy: allergy.clone(),
                ingredients: found,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named(names: &[&str]) -> Vec<RecipeIngredient> {
        names
            .iter()
            .map(|n| RecipeIngredient {
                name: n.to_string(),
                ..Default::default()
            })
            .collect()
    }

    fn found(names: &[&str], allergy: &str) -> Vec<String> {
        allergens(&named(names), &[allergy.to_string()])
            .into_iter()
            .flat_map(|a| a.ingredients)
            .collect()
    }

    #[test]
    fn words_and_prefixes() {
        assert_eq!(
            found(&["Peanut butter", "roasted peanuts", "salt"], "peanut"),
            ["Peanut butter", "roasted peanuts"]
        );
        assert_eq!(found(&["2 eggs", "eggplant"], "egg"), ["2 eggs"]);
        assert!(found(&["nutmeg"], "nuts").is_empty());
    }

    #[test]
    fn groups_cover_their_members() {
        assert_eq!(
            found(
                &["walnuts", "ground almonds", "nutmeg", "butternut squash"],
                "nuts"
            ),
            ["walnuts", "ground almonds"]
        );
        assert_eq!(
            found(&["king prawns", "rice"], "Shellfish"),
            ["king prawns"]
        );
        assert_eq!(found(&["plain flour", "sugar"], "gluten"), ["plain flour"]);
        assert_eq!(
            found(
                &["unsalted butter", "cream of tartar", "double cream"],
                "dairy"
            ),
            ["unsalted butter", "double cream"]
        );
        let all = allergens(
            &named(&["peanuts", "milk"]),
            &["peanut".into(), "lactose".into(), "fish".into()],
        );
        assert_eq!(all.len(), 2);
        assert_eq!(all[1].allergy, "lactose");
        assert_eq!(all[1].ingredients, ["milk"]);
    }
}
