//! Recipes: create, read, update, list, every RecipeInput limit at and past its edge,
//! isolation between users, ids under concurrency, the largest recipe: in process (no worker
//! takes part), through the gateway's router.

use serde_json::{json, Value};
use stack_tests::recipes::{
    numbers_as_floats as floats, pancakes, recipe_ids, recipe_path, RECIPES,
};
use stack_tests::{assert_news_error, details, header, Product, TestStack};

fn ingredient(name: &str) -> Value {
    json!({"quantity": 1, "unit": "g", "name": name})
}

#[tokio::test]
async fn create_read_update_list() {
    let t = TestStack::in_process(Product::Recipes).await;
    let token = t.cook("chef").await;
    let id = t.create_recipe(&token, &pancakes()).await;
    assert!(id >= 1);

    let response = t.get_auth(&recipe_path(id), &token).await;
    assert_eq!(response.status(), 200);
    let recipe: Value = response.json().await.unwrap();
    assert_eq!(recipe["id"], id);
    assert_eq!(recipe["title"], "Pancakes");
    assert_eq!(recipe["ingredients"], floats(&pancakes()["ingredients"]));
    assert_eq!(recipe["instructions"], pancakes()["instructions"]);
    assert_eq!(recipe["portions"], 4.0);
    assert!(recipe["editedAt"].is_null(), "{recipe}");
    let opened = recipe["openedAt"]
        .as_str()
        .expect("reading sets openedAt")
        .to_string();
    let created = recipe["createdAt"].as_str().unwrap().to_string();
    assert!(chrono::DateTime::parse_from_rfc3339(&opened).is_ok());
    // Read again at once: the reading is recorded once per 10 minutes, not written every time.
    let again: Value = t
        .get_auth(&recipe_path(id), &token)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(again["openedAt"], opened.as_str());

    // A partial update changes only what it names, and sets editedAt.
    let response = t
        .patch_json_auth(
            &recipe_path(id),
            &token,
            &json!({"title": "Crêpes", "nutrients": {"calories": 1, "protein": 2, "fat": 3, "carbs": 4}}),
        )
        .await;
    assert_eq!(response.status(), 200);
    let updated: Value = response.json().await.unwrap();
    assert_eq!(updated["title"], "Crêpes");
    assert_eq!(updated["ingredients"], floats(&pancakes()["ingredients"]));
    assert_eq!(updated["nutrients"]["fat"], 3.0);
    assert_eq!(updated["createdAt"], created.as_str());
    assert!(updated["editedAt"].is_string(), "{updated}");
    let response = t
        .patch_json_auth(&recipe_path(id), &token, &json!({"nutrients": null}))
        .await;
    assert!(response
        .json::<Value>()
        .await
        .unwrap()
        .get("nutrients")
        .is_none());

    let second = t.create_recipe(&token, &pancakes()).await;
    assert!(second > id);
    let list: Value = t.get_auth(RECIPES, &token).await.json().await.unwrap();
    let ids = recipe_ids(&list);
    assert_eq!(ids, [id, second]);
    assert_eq!(list[0]["title"], "Crêpes");

    // Pages: limit and after.
    let page: Value = t
        .get_auth(&format!("{RECIPES}?limit=1"), &token)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(page.as_array().unwrap().len(), 1);
    let page: Value = t
        .get_auth(&format!("{RECIPES}?limit=20&after={id}"), &token)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(page[0]["id"], second);

    // The pages say when more follow: a Link to the next one, none on the last.
    let first = t.get_auth(&format!("{RECIPES}?limit=1"), &token).await;
    let next = header(first.headers(), "link").to_string();
    assert_eq!(
        next,
        format!("<{RECIPES}?limit=1&after={id}>; rel=\"next\"")
    );
    let target = next
        .trim_start_matches('<')
        .split_once('>')
        .map(|(url, _)| url.to_string())
        .unwrap();
    let last = t.get_auth(&target, &token).await;
    assert_eq!(header(last.headers(), "link"), "");
    let last: Value = last.json().await.unwrap();
    assert_eq!(recipe_ids(&last), [second]);
    let whole = t.get_auth(&format!("{RECIPES}?limit=2"), &token).await;
    assert_eq!(
        header(whole.headers(), "link"),
        "",
        "exactly a page: no more"
    );
    for (query, field) in [
        ("limit=0", "limit"),
        ("limit=21", "limit"),
        ("limit=x", "limit"),
        ("after=0", "after"),
        ("after=-3", "after"),
    ] {
        let body = assert_news_error(
            t.get_auth(&format!("{RECIPES}?{query}"), &token).await,
            400,
            "/recipes",
        )
        .await;
        assert!(
            details(&body)[0].starts_with(&format!("{field}:")),
            "{query}: {body}"
        );
    }
    assert_news_error(t.get(RECIPES).await, 401, "/recipes").await;
}

#[tokio::test]
async fn twenty_five_recipes_list_as_a_page_of_twenty_and_a_marked_rest() {
    let t = TestStack::in_process(Product::Recipes).await;
    let token = t.cook("baker").await;
    let mut created = Vec::new();
    for i in 0..25 {
        let mut recipe = pancakes();
        recipe["title"] = json!(format!("Pancakes {i}"));
        created.push(t.create_recipe(&token, &recipe).await);
    }
    created.sort_unstable();

    // The default page: 20 recipes, and a Link saying more follow.
    let first = t.get_auth(RECIPES, &token).await;
    assert_eq!(first.status(), 200);
    let next = header(first.headers(), "link").to_string();
    let first: Value = first.json().await.unwrap();
    let first_ids = recipe_ids(&first);
    assert_eq!(first_ids, created[..20]);
    assert_eq!(
        next,
        format!("<{RECIPES}?limit=20&after={}>; rel=\"next\"", created[19])
    );
    let target = next
        .trim_start_matches('<')
        .split_once('>')
        .map(|(url, _)| url.to_string())
        .unwrap();
    // The rest: the other 5, and no Link.
    let rest = t.get_auth(&target, &token).await;
    assert_eq!(rest.status(), 200);
    assert_eq!(header(rest.headers(), "link"), "", "the last page");
    let rest: Value = rest.json().await.unwrap();
    assert_eq!(recipe_ids(&rest), created[20..]);
}

#[tokio::test]
async fn users_see_only_their_own_recipes() {
    let t = TestStack::in_process(Product::Recipes).await;
    let alice = t.cook("alice_c").await;
    let bob = t.cook("bob_c").await;
    let id = t.create_recipe(&alice, &pancakes()).await;

    assert_news_error(
        t.get_auth(&recipe_path(id), &bob).await,
        404,
        &format!("/recipes/{id}"),
    )
    .await;
    assert_news_error(
        t.patch_json_auth(&recipe_path(id), &bob, &json!({"title": "Mine now"}))
            .await,
        404,
        &format!("/recipes/{id}"),
    )
    .await;
    let list: Value = t.get_auth(RECIPES, &bob).await.json().await.unwrap();
    assert_eq!(list, json!([]));
    let mine: Value = t
        .get_auth(&recipe_path(id), &alice)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(mine["title"], "Pancakes", "bob's patch changed nothing");
    assert_news_error(
        t.get_auth(&recipe_path(i64::MAX), &alice).await,
        404,
        &format!("/recipes/{}", i64::MAX),
    )
    .await;
}

#[tokio::test]
async fn recipe_ids_in_paths_are_integers_of_at_least_one() {
    let t = TestStack::in_process(Product::Recipes).await;
    let token = t.cook("ids").await;
    for bad in [
        "0",
        "-1",
        "abc",
        "1.5",
        "1e3",
        "99999999999999999999",
        "%201",
    ] {
        let response = t.get_auth(&recipe_path(bad), &token).await;
        assert_eq!(response.status(), 400, "{bad}");
        let body: Value = response.json().await.unwrap();
        assert!(details(&body)[0].starts_with("recipeId:"), "{bad}: {body}");
        let response = t
            .patch_json_auth(&recipe_path(bad), &token, &json!({}))
            .await;
        assert_eq!(response.status(), 400, "{bad}");
    }
}

#[tokio::test]
async fn every_recipe_limit_at_and_past_its_edge() {
    let t = TestStack::in_process(Product::Recipes).await;
    let token = t.cook("limits").await;
    let with = |field: &str, value: Value| {
        let mut recipe = pancakes();
        recipe[field] = value;
        recipe
    };
    let ingredient_with = |key: &str, value: Value| {
        let mut i = ingredient("flour");
        i[key] = value;
        json!([i])
    };
    let accepted = [
        with("title", json!("t".repeat(255))),
        with("title", json!("t")),
        with("portions", json!(0.5)),
        with("portions", json!(1000)),
        with("ingredients", json!(vec![ingredient("salt"); 100])),
        with("instructions", json!(vec!["Stir."; 50])),
        with("instructions", json!(["s".repeat(1000)])),
        with(
            "ingredients",
            ingredient_with("name", json!("n".repeat(100))),
        ),
        with(
            "ingredients",
            ingredient_with("unit", json!("u".repeat(20))),
        ),
        with("ingredients", ingredient_with("unit", json!(""))),
        with("ingredients", ingredient_with("quantity", json!(100000))),
        with("ingredients", ingredient_with("quantity", json!(0))),
        with(
            "nutrients",
            json!({"calories": 0, "protein": 0, "fat": 0, "carbs": 10000000}),
        ),
    ];
    for recipe in accepted {
        let response = t.post_json_auth(RECIPES, &token, &recipe).await;
        assert_eq!(response.status(), 201, "{recipe}");
    }
    let refused = [
        (with("title", json!("t".repeat(256))), "title"),
        (with("title", json!("")), "title"),
        (with("title", json!("   ")), "title"),
        (with("portions", json!(0.49)), "portions"),
        (with("portions", json!(1000.5)), "portions"),
        (with("ingredients", json!([])), "ingredients"),
        (
            with("ingredients", json!(vec![ingredient("salt"); 101])),
            "ingredients",
        ),
        (with("instructions", json!([])), "instructions"),
        (
            with("instructions", json!(vec!["Stir."; 51])),
            "instructions",
        ),
        (with("instructions", json!(["ok", ""])), "instructions[1]"),
        (
            with("instructions", json!(["s".repeat(1001)])),
            "instructions[0]",
        ),
        (
            with(
                "ingredients",
                ingredient_with("name", json!("n".repeat(101))),
            ),
            "ingredients[0].name",
        ),
        (
            with("ingredients", ingredient_with("name", json!(" "))),
            "ingredients[0].name",
        ),
        (
            with(
                "ingredients",
                ingredient_with("unit", json!("u".repeat(21))),
            ),
            "ingredients[0].unit",
        ),
        (
            with("ingredients", ingredient_with("quantity", json!(100000.5))),
            "ingredients[0].quantity",
        ),
        (
            with("ingredients", ingredient_with("quantity", json!(-1))),
            "ingredients[0].quantity",
        ),
        (
            with(
                "nutrients",
                json!({"calories": -1, "protein": 0, "fat": 0, "carbs": 0}),
            ),
            "nutrients.calories",
        ),
        (
            with(
                "nutrients",
                json!({"calories": 0, "protein": 0, "fat": 0, "carbs": 10000001}),
            ),
            "nutrients.carbs",
        ),
        (with("title", json!("a\u{0}b")), "title"),
    ];
    for (recipe, field) in &refused {
        let body = assert_news_error(
            t.post_json_auth(RECIPES, &token, recipe).await,
            400,
            "/recipes",
        )
        .await;
        assert!(
            details(&body)
                .iter()
                .any(|d| d.starts_with(&format!("{field}:"))),
            "{field}: {body}"
        );
    }
    for missing in ["title", "ingredients", "instructions", "portions"] {
        let mut recipe = pancakes();
        recipe.as_object_mut().unwrap().remove(missing);
        let body = assert_news_error(
            t.post_json_auth(RECIPES, &token, &recipe).await,
            400,
            "/recipes",
        )
        .await;
        assert_eq!(details(&body), [format!("{missing}: is required")]);
    }
    // Wrong types and unknown fields are 400s too.
    for recipe in [with("portions", json!("two")), with("id", json!(5))] {
        assert_news_error(
            t.post_json_auth(RECIPES, &token, &recipe).await,
            400,
            "/recipes",
        )
        .await;
    }

    // The same rules on a partial update; a refused update changes nothing.
    let id = t.create_recipe(&token, &pancakes()).await;
    let path = format!("/recipes/{id}");
    for (patch, field) in [
        (json!({"title": "t".repeat(256)}), "title"),
        (json!({"portions": 0.4}), "portions"),
        (json!({"ingredients": []}), "ingredients"),
        (json!({"instructions": [" "]}), "instructions[0]"),
    ] {
        let body = assert_news_error(
            t.patch_json_auth(&recipe_path(id), &token, &patch).await,
            400,
            &path,
        )
        .await;
        assert!(
            details(&body)[0].starts_with(&format!("{field}:")),
            "{body}"
        );
    }
    let unchanged: Value = t
        .get_auth(&recipe_path(id), &token)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(unchanged["title"], "Pancakes");
    assert!(unchanged["editedAt"].is_null());
}

#[tokio::test]
async fn the_largest_recipe_is_stored_and_read_back_whole() {
    let t = TestStack::in_process(Product::Recipes).await;
    let token = t.cook("maximal").await;
    // Every string at its longest, in 4-byte characters.
    let wide = |n: usize| "🍅".repeat(n);
    let recipe = json!({
        "title": wide(255),
        "ingredients": vec![json!({"quantity": 99999.5, "unit": wide(20), "name": wide(100)}); 100],
        "instructions": vec![wide(1000); 50],
        "portions": 1000,
        "nutrients": {"calories": 10000000, "protein": 10000000, "fat": 10000000, "carbs": 10000000}
    });
    let id = t.create_recipe(&token, &recipe).await;
    let read: Value = t
        .get_auth(&recipe_path(id), &token)
        .await
        .json()
        .await
        .unwrap();
    for field in [
        "title",
        "ingredients",
        "instructions",
        "portions",
        "nutrients",
    ] {
        assert_eq!(read[field], floats(&recipe[field]), "{field}");
    }
    let list: Value = t.get_auth(RECIPES, &token).await.json().await.unwrap();
    assert_eq!(list[0]["instructions"], recipe["instructions"]);
    // And it can be updated to another maximal one.
    let response = t
        .patch_json_auth(
            &recipe_path(id),
            &token,
            &json!({"title": "🥕".repeat(255)}),
        )
        .await;
    assert_eq!(response.status(), 200);
}

#[tokio::test]
async fn concurrent_creates_get_distinct_ids() {
    let t = TestStack::in_process(Product::Recipes).await;
    let a = t.cook("racer_a").await;
    let b = t.cook("racer_b").await;
    let creates = (0..24).map(|i| {
        let token = if i % 2 == 0 { a.clone() } else { b.clone() };
        let t = &t;
        async move { (i % 2, t.create_recipe(&token, &pancakes()).await) }
    });
    let created = futures::future::join_all(creates).await;
    // Ids address a recipe under its owner only, so they are unique per user: each of a
    // user's creates got its own, and the list holds all twelve in id order.
    for (user, token) in [(0, &a), (1, &b)] {
        let mut ids: Vec<i64> = created
            .iter()
            .filter(|(u, _)| *u == user)
            .map(|(_, id)| *id)
            .collect();
        ids.sort_unstable();
        let before = ids.len();
        ids.dedup();
        assert_eq!(ids.len(), before, "every create got its own id: {ids:?}");
        assert!(ids.iter().all(|id| *id >= 1));
        let listed: Value = t.get_auth(RECIPES, token).await.json().await.unwrap();
        let listed = recipe_ids(&listed);
        assert_eq!(listed, ids);
    }
}
