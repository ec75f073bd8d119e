//! The recipe box for daily use: photos (presigned upload, sniffed, sized, private), delete,
//! tags and search, portions scaled on read, nutrients stored and per portion, allergens on
//! stored recipes, the meal plan and the shopping list; each new route's 400s, 401 and 403.

use reqwest::Response;
use serde_json::{json, Value};
use stack_tests::community::{GIF, JPEG, PNG};
use stack_tests::recipes::{pancakes, recipe_ids, recipe_path, ME, RECIPES};
use stack_tests::{assert_news_error, details, header, Call, Product, TestStack};

const PLAN: &str = "/api/recipes/plan";
const LIST: &str = "/api/recipes/shopping-list";

fn recipe(title: &str, ingredients: Value, tags: &[&str]) -> Value {
    json!({
        "title": title,
        "ingredients": ingredients,
        "instructions": ["Cook."],
        "portions": 2,
        "tags": tags,
    })
}

fn ing(quantity: f64, unit: &str, name: &str) -> Value {
    json!({"quantity": quantity, "unit": unit, "name": name})
}

async fn json_of(response: Response, status: u16) -> Value {
    assert_eq!(response.status().as_u16(), status, "status");
    response.json().await.expect("json")
}

/// A 400 naming each of `fields` (in `details`, `field: reason`).
async fn assert_fields(response: Response, path: &str, fields: &[&str]) {
    let body = assert_news_error(response, 400, path).await;
    let details = details(&body);
    for field in fields {
        assert!(
            details.iter().any(|d| d.starts_with(&format!("{field}: "))),
            "{field} in {details:?}"
        );
    }
}

/// Signs, sends and confirms `bytes` as the photo of `id`; the confirm's answer.
async fn upload(t: &TestStack, token: &str, id: i64, content_type: &str, bytes: &[u8]) -> Response {
    let signed = json_of(
        t.post_json_auth(
            &format!("{}/image", recipe_path(id)),
            token,
            &json!({"contentType": content_type, "size": bytes.len()}),
        )
        .await,
        201,
    )
    .await;
    assert_eq!(signed["method"], "PUT");
    assert_eq!(signed["headers"]["Content-Length"], bytes.len().to_string());
    let put = t
        .http
        .put(signed["uploadUrl"].as_str().expect("uploadUrl"))
        .header("content-type", content_type)
        .body(bytes.to_vec())
        .call()
        .await;
    assert_eq!(put.status().as_u16(), 200, "the storage took the file");
    let upload = signed["id"].as_str().expect("id");
    t.post_auth(&format!("{}/image/{upload}", recipe_path(id)), token)
        .await
}

/// Photos: private under the owner's prefix, answered as a signed URL, replaced and deleted
/// with their recipe; a file that is not a JPEG, PNG or WebP is refused whatever it claims.
#[tokio::test]
async fn photos_upload_sniffed_private_and_deleted_with_the_recipe() {
    let t = TestStack::in_process(Product::Recipes).await;
    let token = t.cook("photographer").await;
    let other = t.cook("stranger").await;
    let id = t.create_recipe(&token, &pancakes()).await;

    let recipe = json_of(upload(&t, &token, id, "image/png", PNG).await, 200).await;
    let key = recipe["image"]["key"].as_str().expect("key").to_string();
    assert!(
        key.starts_with("recipes/") && key.ends_with(".png"),
        "{key}"
    );
    let url = recipe["image"]["url"].as_str().expect("url").to_string();
    assert!(url.contains("X-Amz-Signature="), "a signed URL: {url}");
    let fetched = t.http.get(&url).call().await;
    assert_eq!(fetched.status().as_u16(), 200);
    assert_eq!(header(fetched.headers(), "content-type"), "image/png");
    assert_eq!(fetched.bytes().await.expect("bytes").as_ref(), PNG);
    // Not public: the same object without a signature is refused.
    let unsigned = url.split('?').next().expect("path").to_string();
    assert_ne!(t.http.get(&unsigned).call().await.status().as_u16(), 200);
    // The read answers it too, with the same URL within the hour.
    let read = json_of(t.get_auth(&recipe_path(id), &token).await, 200).await;
    assert_eq!(read["image"]["url"], url.as_str());

    // A JPEG replaces it (declared as PNG: the first bytes decide); the old one is gone.
    let replaced = json_of(upload(&t, &token, id, "image/png", JPEG).await, 200).await;
    assert!(replaced["image"]["key"]
        .as_str()
        .expect("key")
        .ends_with(".jpg"));
    assert_ne!(t.http.get(&url).call().await.status().as_u16(), 200);

    // A GIF is no recipe photo; the file waiting is deleted, so a second confirm is a 404.
    let refused = upload(&t, &token, id, "image/png", GIF).await;
    let body = json_of(refused, 400).await;
    assert!(details(&body)[0].starts_with("file: "), "{body}");
    // Declared type and size are checked before anything is signed.
    assert_fields(
        t.post_json_auth(
            &format!("{}/image", recipe_path(id)),
            &token,
            &json!({"contentType": "image/gif", "size": 10_485_761}),
        )
        .await,
        &format!("/recipes/{id}/image"),
        &["contentType", "size"],
    )
    .await;
    // Another user's recipe is not theirs (404); a confirm of nothing sent names `uploadId`.
    let path = format!("{}/image", recipe_path(id));
    let missing = t
        .post_json_auth(
            &path,
            &other,
            &json!({"contentType": "image/png", "size": 10}),
        )
        .await;
    assert_news_error(missing, 404, &format!("/recipes/{id}/image")).await;
    let nothing = format!("{path}/0f8fad5b-d9cb-469f-a165-70867728950e");
    assert_fields(
        t.post_auth(&nothing, &token).await,
        &nothing.replace("/api/recipes", ""),
        &["uploadId"],
    )
    .await;
    assert_fields(
        t.post_auth(&format!("{path}/not-a-uuid"), &token).await,
        &format!("/recipes/{id}/image/not-a-uuid"),
        &["uploadId"],
    )
    .await;

    // Removing the photo deletes it.
    let current = replaced["image"]["url"].as_str().expect("url").to_string();
    let removed = json_of(t.delete_auth(&path, &token).await, 200).await;
    assert!(removed.get("image").is_none(), "{removed}");
    assert_ne!(t.http.get(&current).call().await.status().as_u16(), 200);

    // Deleting the recipe deletes its photo.
    let again = json_of(
        upload(&t, &token, id, "image/webp", stack_tests::community::WEBP).await,
        200,
    )
    .await;
    let last = again["image"]["url"].as_str().expect("url").to_string();
    assert_eq!(t.delete_auth(&recipe_path(id), &token).await.status(), 204);
    assert_ne!(t.http.get(&last).call().await.status().as_u16(), 200);

    // 401 without a token, 403 with a token that is not a user's.
    let service = t.service_token().await;
    for (method, route) in [
        ("POST", path.clone()),
        ("DELETE", path.clone()),
        ("POST", nothing.clone()),
    ] {
        let anonymous = t
            .send(
                t.http
                    .request(method.parse().expect("method"), t.url(&route)),
            )
            .await;
        assert_eq!(anonymous.status(), 401, "{method} {route}");
        let forbidden = t
            .send(
                t.http
                    .request(method.parse().expect("method"), t.url(&route))
                    .bearer_auth(&service),
            )
            .await;
        assert_eq!(forbidden.status(), 403, "{method} {route}");
    }
}

/// Delete: 204, then the recipe, its search entry and the list entry are gone; another
/// user's or a missing recipe is a 404.
#[tokio::test]
async fn delete_removes_the_recipe_and_its_search_entry() {
    let t = TestStack::in_process(Product::Recipes).await;
    let token = t.cook("tidy").await;
    let other = t.cook("intruder").await;
    let id = t
        .create_recipe(
            &token,
            &recipe(
                "Lentil soup",
                json!([ing(200.0, "g", "red lentils")]),
                &["soup"],
            ),
        )
        .await;
    let keep = t.create_recipe(&token, &pancakes()).await;
    let path = recipe_path(id);
    assert_news_error(
        t.delete_auth(&path, &other).await,
        404,
        &format!("/recipes/{id}"),
    )
    .await;
    assert_eq!(
        recipe_ids(
            &json_of(
                t.get_auth(&format!("{RECIPES}?q=lentil"), &token).await,
                200
            )
            .await
        ),
        [id]
    );
    assert_eq!(t.delete_auth(&path, &token).await.status(), 204);
    assert_news_error(
        t.get_auth(&path, &token).await,
        404,
        &format!("/recipes/{id}"),
    )
    .await;
    assert_news_error(
        t.delete_auth(&path, &token).await,
        404,
        &format!("/recipes/{id}"),
    )
    .await;
    let found = json_of(
        t.get_auth(&format!("{RECIPES}?q=lentil"), &token).await,
        200,
    )
    .await;
    assert_eq!(found, json!([]));
    assert_eq!(
        recipe_ids(&json_of(t.get_auth(RECIPES, &token).await, 200).await),
        [keep]
    );
    assert_fields(
        t.delete_auth(&recipe_path("x"), &token).await,
        "/recipes/x",
        &["recipeId"],
    )
    .await;
    assert_eq!(t.send(t.http.delete(t.url(&path))).await.status(), 401);
    let service = t.service_token().await;
    assert_eq!(t.delete_auth(&path, &service).await.status(), 403);
}

/// Tags are normalised and bounded; a search finds words (their beginnings, accents and case
/// aside) in titles, ingredient names and tags, newest first, paged by cursor, among 300+
/// recipes in a few Queries.
#[tokio::test]
async fn tags_and_search_among_many_recipes() {
    let t = TestStack::in_process(Product::Recipes).await;
    let token = t.cook("collector").await;
    let other = t.cook("neighbour").await;
    let soup = t
        .create_recipe(
            &token,
            &recipe(
                "Red lentil soup",
                json!([ing(200.0, "g", "red lentils"), ing(1.0, "", "onion")]),
                &[" Weeknight  Dinner", "Soup", "soup"],
            ),
        )
        .await;
    let read = json_of(t.get_auth(&recipe_path(soup), &token).await, 200).await;
    assert_eq!(read["tags"], json!(["weeknight dinner", "soup"]));
    let crepes = t
        .create_recipe(
            &token,
            &recipe(
                "Crêpes Suzette",
                json!([ing(2.0, "", "oranges")]),
                &["dessert"],
            ),
        )
        .await;
    // Filler: 300 more recipes, so the search reads many cards.
    for i in 0..300 {
        t.create_recipe(
            &token,
            &recipe(
                &format!("Stew {i}"),
                json!([ing(1.0, "kg", "beef")]),
                &["stew"],
            ),
        )
        .await;
    }
    let last_soup = t
        .create_recipe(
            &token,
            &recipe(
                "Lentil salad",
                json!([ing(100.0, "g", "green lentils")]),
                &["salad"],
            ),
        )
        .await;
    t.create_recipe(
        &other,
        &recipe("Lentil dal", json!([ing(1.0, "cup", "lentils")]), &[]),
    )
    .await;

    let ids = |q: &'static str| {
        let t = &t;
        let token = token.clone();
        async move {
            recipe_ids(&json_of(t.get_auth(&format!("{RECIPES}?{q}"), &token).await, 200).await)
        }
    };
    // Words from the title, ingredients and tags; beginnings of words; newest first; only
    // the caller's.
    assert_eq!(ids("q=lentil").await, [last_soup, soup]);
    assert_eq!(ids("q=LENTIL%20red").await, [soup]);
    assert_eq!(ids("q=onion").await, [soup]);
    assert_eq!(ids("q=crepes").await, [crepes]);
    assert_eq!(ids("q=weeknight").await, [soup]);
    assert_eq!(ids("tag=Weeknight%20Dinner").await, [soup]);
    assert_eq!(ids("tag=soup&q=lentil").await, [soup]);
    assert_eq!(ids("tag=weeknight").await, Vec::<i64>::new());
    // Paged by cursor.
    let first = t
        .get_auth(&format!("{RECIPES}?q=lentil&limit=1"), &token)
        .await;
    let link = header(first.headers(), "link").to_string();
    assert_eq!(recipe_ids(&json_of(first, 200).await), [last_soup]);
    assert!(
        link.contains("cursor=") && link.contains("q=lentil"),
        "{link}"
    );
    let next = link
        .trim_start_matches('<')
        .split('>')
        .next()
        .expect("target")
        .to_string();
    assert_eq!(
        recipe_ids(&json_of(t.get_auth(&next, &token).await, 200).await),
        [soup]
    );
    // The plain list and its `after` work as before.
    let plain = json_of(t.get_auth(&format!("{RECIPES}?limit=2"), &token).await, 200).await;
    assert_eq!(recipe_ids(&plain), [soup, crepes]);

    // Bad input: each field named.
    let too_many: Vec<String> = (0..21).map(|i| format!("t{i}")).collect();
    assert_fields(
        t.post_json_auth(
            RECIPES,
            &token,
            &json!({"title": "x", "ingredients": [ing(1.0, "", "x")], "instructions": ["x"], "portions": 1, "tags": too_many}),
        )
        .await,
        "/recipes",
        &["tags"],
    )
    .await;
    assert_fields(
        t.patch_json_auth(
            &recipe_path(soup),
            &token,
            &json!({"tags": ["ok", " ", "x".repeat(51)]}),
        )
        .await,
        &format!("/recipes/{soup}"),
        &["tags[1]", "tags[2]"],
    )
    .await;
    assert_fields(
        t.get_auth(
            &format!("{RECIPES}?q=a&after=1&tag=%20&cursor=0&portions=0"),
            &token,
        )
        .await,
        "/recipes",
        &["after", "tag", "cursor", "portions"],
    )
    .await;
    let service = t.service_token().await;
    assert_eq!(
        t.get_auth(&format!("{RECIPES}?q=x"), &service)
            .await
            .status(),
        403
    );
    assert_eq!(t.get(&format!("{RECIPES}?q=x")).await.status(), 401);
}

/// `?portions=N` scales quantities (fractions kept as cooks write them) and nutrients; stored
/// nutrients survive a reload and show per portion; a reader's allergies are named on read
/// and in lists.
#[tokio::test]
async fn portions_nutrients_and_allergens_on_stored_recipes() {
    let t = TestStack::for_product(Product::Recipes).await;
    let token = t.cook("careful").await;
    let prefs = json!({"preferences": {"allergies": ["peanut", "nuts"]}});
    assert_eq!(t.patch_json_auth(ME, &token, &prefs).await.status(), 200);
    let id = t
        .create_recipe(
            &token,
            &json!({
                "title": "Satay",
                "ingredients": [
                    {"quantity": 0.5, "amount": "½", "unit": "cup", "name": "peanut butter"},
                    {"quantity": 1, "quantityMax": 2, "amount": "1-2", "unit": "clove", "name": "garlic"},
                    {"quantity": 30, "unit": "g", "name": "chopped walnuts"},
                    {"unit": "", "name": "salt", "note": "to taste"},
                    {"quantity": 1, "unit": "pinch", "name": "nutmeg"}
                ],
                "instructions": ["Stir."],
                "portions": 2
            }),
        )
        .await;
    let read = json_of(t.get_auth(&recipe_path(id), &token).await, 200).await;
    assert_eq!(
        read["allergens"],
        json!([
            {"allergy": "peanut", "ingredients": ["peanut butter"]},
            {"allergy": "nuts", "ingredients": ["chopped walnuts"]}
        ])
    );
    let list = json_of(t.get_auth(RECIPES, &token).await, 200).await;
    assert_eq!(list[0]["allergens"], read["allergens"]);

    let scaled = json_of(
        t.get_auth(&format!("{}?portions=6", recipe_path(id)), &token)
            .await,
        200,
    )
    .await;
    assert_eq!(scaled["portions"], 6.0);
    assert_eq!(scaled["scaledFrom"], 2.0);
    let ingredients = &scaled["ingredients"];
    assert_eq!(ingredients[0]["amount"], "1 ½");
    assert_eq!(ingredients[0]["quantity"], 1.5);
    assert_eq!(ingredients[1]["amount"], "3-6");
    assert_eq!(ingredients[2]["amount"], "90");
    assert_eq!(
        ingredients[3],
        json!({"unit": "", "name": "salt", "note": "to taste"})
    );
    assert_eq!(ingredients[4]["quantity"], 1.0, "a pinch stays a pinch");
    assert_fields(
        t.get_auth(&format!("{}?portions=abc", recipe_path(id)), &token)
            .await,
        &format!("/recipes/{id}"),
        &["portions"],
    )
    .await;

    // Nutrients of ingredients the food table knows: computed, stored, read back per portion.
    let known = t.create_recipe(&token, &pancakes()).await;
    let nutrients_path = format!("{}/nutrients", recipe_path(known));
    let stored = json_of(t.post_auth(&nutrients_path, &token).await, 200).await;
    let calories = stored["recipe"]["nutrients"]["calories"]
        .as_f64()
        .expect("calories");
    assert!(calories > 0.0, "{stored}");
    assert_eq!(stored["computed"]["estimatedByModel"], json!([]));
    let reloaded = json_of(t.get_auth(&recipe_path(known), &token).await, 200).await;
    assert_eq!(reloaded["nutrients"]["calories"], calories);
    let per_portion = reloaded["nutrientsPerPortion"]["calories"]
        .as_f64()
        .expect("per portion");
    assert!(
        (per_portion - calories / 4.0).abs() < 0.06,
        "{per_portion} vs {calories}"
    );
    let doubled = json_of(
        t.get_auth(&format!("{}?portions=8", recipe_path(known)), &token)
            .await,
        200,
    )
    .await;
    assert!((doubled["nutrients"]["calories"].as_f64().expect("c") - calories * 2.0).abs() < 0.2);
    assert_eq!(
        doubled["nutrientsPerPortion"],
        reloaded["nutrientsPerPortion"]
    );
    // Other ingredients make the stored nutrients wrong: they are cleared.
    let changed = json_of(
        t.patch_json_auth(
            &recipe_path(known),
            &token,
            &json!({"ingredients": [ing(100.0, "g", "flour")]}),
        )
        .await,
        200,
    )
    .await;
    assert!(changed.get("nutrients").is_none(), "{changed}");
    assert_news_error(
        t.post_auth(&format!("{}/nutrients", recipe_path(999)), &token)
            .await,
        404,
        "/recipes/999/nutrients",
    )
    .await;
    let service = t.service_token().await;
    assert_eq!(t.post_auth(&nutrients_path, &service).await.status(), 403);
    assert_eq!(
        t.send(t.http.post(t.url(&nutrients_path))).await.status(),
        401
    );
}

/// A week's plan, then one shopping list for it: quantities scaled to the planned portions
/// and merged by name and compatible unit; checked items and items added by hand survive a
/// rebuild; a recipe deleted after planning stays in the plan, marked, and out of the list.
#[tokio::test]
async fn plan_a_week_then_shop_for_it() {
    let t = TestStack::in_process(Product::Recipes).await;
    let token = t.cook("planner").await;
    let other = t.cook("snoop").await;
    let pasta = t
        .create_recipe(
            &token,
            &recipe(
                "Pasta",
                json!([
                    ing(200.0, "g", "spaghetti"),
                    ing(1.0, "tbsp", "olive oil"),
                    ing(2.0, "", "tomatoes")
                ]),
                &[],
            ),
        )
        .await;
    let salad = t
        .create_recipe(
            &token,
            &recipe(
                "Salad",
                json!([ing(1.0, "tsp", "olive oil"), ing(1.0, "", "tomato"), {"unit": "", "name": "salt", "note": "to taste"}]),
                &[],
            ),
        )
        .await;
    let cake = t
        .create_recipe(
            &token,
            &recipe("Cake", json!([ing(0.5, "kg", "spaghetti")]), &[]),
        )
        .await;
    let monday = format!("{PLAN}/2026-12-07/dinner");
    let slot = json_of(
        t.put_json_auth(
            &monday,
            &token,
            &json!({"entries": [{"recipeId": pasta, "portions": 4}]}),
        )
        .await,
        200,
    )
    .await;
    assert_eq!(slot["entries"][0]["title"], "Pasta");
    assert_eq!(slot["entries"][0]["portions"], 4.0);
    t.put_json_auth(
        &format!("{PLAN}/2026-12-08/lunch"),
        &token,
        &json!({"entries": [{"recipeId": salad}, {"recipeId": cake, "portions": 1}]}),
    )
    .await;
    t.put_json_auth(
        &format!("{PLAN}/2026-12-08/breakfast"),
        &token,
        &json!({"entries": [{"recipeId": salad}]}),
    )
    .await;
    // A week, by day and meal; paged by cursor.
    let week = json_of(
        t.get_auth(&format!("{PLAN}?from=2026-12-07&to=2026-12-13"), &token)
            .await,
        200,
    )
    .await;
    let slots: Vec<(String, String)> = week
        .as_array()
        .expect("slots")
        .iter()
        .map(|s| {
            (
                s["date"].as_str().unwrap_or("").into(),
                s["meal"].as_str().unwrap_or("").into(),
            )
        })
        .collect();
    assert_eq!(
        slots,
        [
            ("2026-12-07".into(), "dinner".into()),
            ("2026-12-08".into(), "breakfast".into()),
            ("2026-12-08".into(), "lunch".into())
        ]
    );
    let page = t
        .get_auth(
            &format!("{PLAN}?from=2026-12-07&to=2026-12-13&limit=2"),
            &token,
        )
        .await;
    let link = header(page.headers(), "link").to_string();
    assert!(link.contains("cursor=2026-12-08.breakfast"), "{link}");
    let rest = link
        .trim_start_matches('<')
        .split('>')
        .next()
        .expect("next")
        .to_string();
    let rest = json_of(t.get_auth(&rest, &token).await, 200).await;
    assert_eq!(rest.as_array().map(Vec::len), Some(1));
    assert_eq!(rest[0]["meal"], "lunch");
    // Another user sees nothing of it and cannot plan my recipes.
    assert_eq!(
        json_of(
            t.get_auth(&format!("{PLAN}?from=2026-12-07&to=2026-12-13"), &other)
                .await,
            200
        )
        .await,
        json!([])
    );
    assert_fields(
        t.put_json_auth(&monday, &other, &json!({"entries": [{"recipeId": pasta}]}))
            .await,
        "/plan/2026-12-07/dinner",
        &["entries[0].recipeId"],
    )
    .await;

    // The week's list: pasta for 4 (twice the recipe), salad twice for 2, cake for 1.
    let list = json_of(
        t.post_json_auth(
            LIST,
            &token,
            &json!({"from": "2026-12-07", "to": "2026-12-13"}),
        )
        .await,
        200,
    )
    .await;
    let lines = |list: &Value| -> Vec<String> {
        list["items"]
            .as_array()
            .expect("items")
            .iter()
            .map(|i| {
                [
                    i["amount"].as_str().unwrap_or(""),
                    i["unit"].as_str().unwrap_or(""),
                    i["name"].as_str().unwrap_or(""),
                ]
                .into_iter()
                .filter(|p| !p.is_empty())
                .collect::<Vec<_>>()
                .join(" ")
            })
            .collect()
    };
    assert_eq!(
        lines(&list),
        [
            "650 g spaghetti",
            "2 ⅔ tbsp olive oil",
            "6 tomatoes",
            "salt"
        ],
        "{list}"
    );
    assert_eq!(list["from"], "2026-12-07");

    // Check one off, add one by hand, rebuild: both survive.
    let oil = list["items"][1]["id"].as_str().expect("id").to_string();
    let checked = json_of(
        t.patch_json_auth(
            &format!("{LIST}/items/{oil}"),
            &token,
            &json!({"checked": true}),
        )
        .await,
        200,
    )
    .await;
    assert_eq!(checked["checked"], true);
    let added = json_of(
        t.post_json_auth(
            &format!("{LIST}/items"),
            &token,
            &json!({"name": "Coffee", "quantity": 500, "unit": "g"}),
        )
        .await,
        201,
    )
    .await;
    assert_eq!(added["extra"], true);
    // The cake goes; it stays in the plan, marked, and leaves the list.
    assert_eq!(
        t.delete_auth(&recipe_path(cake), &token).await.status(),
        204
    );
    let plan = json_of(
        t.get_auth(&format!("{PLAN}?from=2026-12-08&to=2026-12-08"), &token)
            .await,
        200,
    )
    .await;
    assert_eq!(plan[1]["entries"][1]["deleted"], true, "{plan}");
    assert!(plan[1]["entries"][0].get("deleted").is_none(), "{plan}");
    let rebuilt = json_of(
        t.post_json_auth(
            LIST,
            &token,
            &json!({"from": "2026-12-07", "to": "2026-12-13"}),
        )
        .await,
        200,
    )
    .await;
    assert_eq!(
        lines(&rebuilt),
        [
            "400 g spaghetti",
            "2 ⅔ tbsp olive oil",
            "6 tomatoes",
            "salt",
            "500 g Coffee"
        ]
    );
    assert_eq!(rebuilt["items"][1]["checked"], true);
    assert_eq!(rebuilt["items"][1]["id"], oil.as_str());
    // From chosen recipes, at the portions asked.
    let chosen = json_of(
        t.post_json_auth(
            LIST,
            &token,
            &json!({"recipes": [{"recipeId": salad, "portions": 6}]}),
        )
        .await,
        200,
    )
    .await;
    assert_eq!(
        lines(&chosen)[..3],
        ["1 tbsp olive oil", "3 tomato", "salt"]
    );
    // Remove an item; the list reads as left.
    let coffee = added["id"].as_str().expect("id");
    assert_eq!(
        t.delete_auth(&format!("{LIST}/items/{coffee}"), &token)
            .await
            .status(),
        204
    );
    assert_news_error(
        t.delete_auth(&format!("{LIST}/items/{coffee}"), &token)
            .await,
        404,
        &format!("/shopping-list/items/{coffee}"),
    )
    .await;
    let read = json_of(t.get_auth(LIST, &token).await, 200).await;
    assert!(!read.to_string().contains("Coffee"));
    // Clearing a meal.
    assert_eq!(t.delete_auth(&monday, &token).await.status(), 204);
    // The plain list holds recipes only (the plan and the list share the partition).
    assert_eq!(
        recipe_ids(&json_of(t.get_auth(RECIPES, &token).await, 200).await),
        [pasta, salad]
    );

    // Bad input, each field named.
    assert_fields(
        t.put_json_auth(
            &format!("{PLAN}/2026-13-01/brunch"),
            &token,
            &json!({"entries": [{"recipeId": 0, "portions": 0}]}),
        )
        .await,
        "/plan/2026-13-01/brunch",
        &["date", "meal", "entries[0].recipeId", "entries[0].portions"],
    )
    .await;
    assert_fields(
        t.get_auth(
            &format!("{PLAN}?from=2026-12-07&to=2026-12-01&limit=0"),
            &token,
        )
        .await,
        "/plan",
        &["limit"],
    )
    .await;
    assert_fields(
        t.get_auth(&format!("{PLAN}?from=2026-01-01&to=2026-12-31"), &token)
            .await,
        "/plan",
        &["to"],
    )
    .await;
    assert_fields(
        t.post_json_auth(LIST, &token, &json!({})).await,
        "/shopping-list",
        &["recipes"],
    )
    .await;
    assert_fields(
        t.post_json_auth(
            &format!("{LIST}/items"),
            &token,
            &json!({"name": " ", "quantity": -1, "unit": "x".repeat(21)}),
        )
        .await,
        "/shopping-list/items",
        &["name", "quantity", "unit"],
    )
    .await;
    assert_fields(
        t.patch_json_auth(&format!("{LIST}/items/XYZ"), &token, &json!({}))
            .await,
        "/shopping-list/items/XYZ",
        &["itemId", "checked"],
    )
    .await;

    // 401 and 403 on every plan and list route.
    let service = t.service_token().await;
    for (method, route) in [
        ("GET", PLAN.to_string()),
        ("PUT", monday.clone()),
        ("DELETE", monday.clone()),
        ("GET", LIST.to_string()),
        ("POST", LIST.to_string()),
        ("POST", format!("{LIST}/items")),
        ("PATCH", format!("{LIST}/items/{oil}")),
        ("DELETE", format!("{LIST}/items/{oil}")),
    ] {
        let request = |token: Option<&str>| {
            let r = t
                .http
                .request(method.parse().expect("method"), t.url(&route))
                .json(&json!({}));
            match token {
                Some(token) => r.bearer_auth(token),
                None => r,
            }
        };
        assert_eq!(
            t.send(request(None)).await.status(),
            401,
            "{method} {route}"
        );
        assert_eq!(
            t.send(request(Some(&service))).await.status(),
            403,
            "{method} {route}"
        );
    }
}

/// Recipes stored before search cards existed are found: the first search writes their cards.
#[tokio::test]
async fn recipes_stored_before_search_cards_are_found() {
    use aws_sdk_dynamodb::types::AttributeValue;
    let t = TestStack::in_process(Product::Recipes).await;
    let token = t.cook("oldtimer").await;
    let user_id = t.get_ok(stack_tests::users::ME, Some(&token)).await["id"]
        .as_str()
        .expect("id")
        .to_string();
    let data = json!({
        "title": "Grandma's goulash",
        "ingredients": [{"quantity": 500, "unit": "g", "name": "beef"}],
        "instructions": ["Simmer."],
        "portions": 4
    });
    let s = |v: &str| AttributeValue::S(v.to_string());
    let item = std::collections::HashMap::from([
        ("pk".to_string(), s(&format!("USER#{user_id}"))),
        ("sk".to_string(), s("RECIPE#0000000000000000007")),
        ("id".to_string(), AttributeValue::N("7".into())),
        ("data".to_string(), s(&data.to_string())),
        ("createdAt".to_string(), s("2025-01-01T00:00:00Z")),
        ("version".to_string(), AttributeValue::N("1".into())),
    ]);
    t.put_items("RecipesTable", vec![item]).await;
    let newer = t
        .create_recipe(
            &token,
            &recipe("Beef stew", json!([ing(1.0, "kg", "beef")]), &[]),
        )
        .await;
    let found = json_of(t.get_auth(&format!("{RECIPES}?q=beef"), &token).await, 200).await;
    assert_eq!(recipe_ids(&found), [newer, 7]);
    let again = json_of(
        t.get_auth(&format!("{RECIPES}?q=goulash"), &token).await,
        200,
    )
    .await;
    assert_eq!(recipe_ids(&again), [7]);
}
